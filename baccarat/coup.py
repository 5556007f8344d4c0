"""One coup: dealing in the proper order and resolving the result.

``CoupDeal`` is a small state machine: it says which hand takes the next card
(P, B, P, B, then by the tableau) and refuses a card for the wrong hand, so the
same code serves the RNG shoe, a dealer entering cards and a recorded shoe.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from baccarat.cards import Card, hand_total
from baccarat.tableau import banker_draws, is_natural, player_draws

PLAYER = "player"
BANKER = "banker"
TIE = "tie"
HANDS = (PLAYER, BANKER)


class DealingError(ValueError):
    """A card offered to the wrong hand, or after the coup is complete."""


@dataclass(frozen=True, slots=True)
class CoupResult:
    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    player_total: int = field(init=False)
    banker_total: int = field(init=False)
    winner: str = field(init=False)

    def __post_init__(self) -> None:
        player_total, banker_total = hand_total(self.player), hand_total(self.banker)
        winner = PLAYER if player_total > banker_total else BANKER if banker_total > player_total else TIE
        object.__setattr__(self, "player_total", player_total)
        object.__setattr__(self, "banker_total", banker_total)
        object.__setattr__(self, "winner", winner)

    @property
    def player_natural(self) -> bool:
        return is_natural(hand_total(self.player[:2]))

    @property
    def banker_natural(self) -> bool:
        return is_natural(hand_total(self.banker[:2]))

    @property
    def natural(self) -> bool:
        return self.player_natural or self.banker_natural

    @property
    def player_pair(self) -> bool:
        return self.player[0].rank == self.player[1].rank

    @property
    def banker_pair(self) -> bool:
        return self.banker[0].rank == self.banker[1].rank

    @property
    def player_perfect_pair(self) -> bool:
        return self.player[0] == self.player[1]

    @property
    def banker_perfect_pair(self) -> bool:
        return self.banker[0] == self.banker[1]

    @property
    def card_count(self) -> int:
        return len(self.player) + len(self.banker)

    @property
    def margin(self) -> int:
        """By how many points the winner won (0 on a tie)."""
        return abs(self.player_total - self.banker_total)

    @property
    def banker_wins_with_six(self) -> bool:
        return self.winner == BANKER and self.banker_total == 6

    @property
    def banker_three_card_seven(self) -> bool:
        """Banker wins with a three-card 7 (EZ Baccarat's 'Dragon 7')."""
        return self.winner == BANKER and self.banker_total == 7 and len(self.banker) == 3

    @property
    def player_three_card_eight(self) -> bool:
        """Player wins with a three-card 8 (EZ Baccarat's 'Panda 8')."""
        return self.winner == PLAYER and self.player_total == 8 and len(self.player) == 3

    def dealing_order(self) -> list[tuple[str, Card]]:
        """The cards as they are dealt: P, B, P, B, then the player's third, then the banker's."""
        order = [(PLAYER, self.player[0]), (BANKER, self.banker[0]), (PLAYER, self.player[1]), (BANKER, self.banker[1])]
        return order + [(PLAYER, card) for card in self.player[2:]] + [(BANKER, card) for card in self.banker[2:]]

    def as_dict(self) -> dict:
        return {
            "player": [card.code for card in self.player],
            "banker": [card.code for card in self.banker],
            "player_total": self.player_total,
            "banker_total": self.banker_total,
            "winner": self.winner,
            "natural": self.natural,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
        }


class CoupDeal:
    """The cards of one coup as they come out of the shoe, in dealing order."""

    def __init__(self) -> None:
        self.player: list[Card] = []
        self.banker: list[Card] = []
        self.order: list[tuple[str, Card]] = []

    def next_hand(self) -> str | None:
        """The hand that takes the next card, or ``None`` when the coup is complete."""
        dealt = len(self.order)
        if dealt < 4:
            return PLAYER if dealt % 2 == 0 else BANKER
        player_two, banker_two = hand_total(self.player[:2]), hand_total(self.banker[:2])
        if is_natural(player_two) or is_natural(banker_two):
            return None
        if len(self.player) == 2 and len(self.banker) == 2:
            if player_draws(player_two):
                return PLAYER
            return BANKER if banker_draws(banker_two, None) else None
        if len(self.player) == 3 and len(self.banker) == 2:
            return BANKER if banker_draws(banker_two, self.player[2].value) else None
        return None

    @property
    def complete(self) -> bool:
        return self.next_hand() is None

    def add(self, card: Card, hand: str | None = None) -> str:
        """Deal ``card`` to the hand whose turn it is; ``hand`` (if given) must be that hand."""
        expected = self.next_hand()
        if expected is None:
            raise DealingError(f"the coup is complete: no card may be dealt ({card.code})")
        if hand is not None and hand != expected:
            raise DealingError(f"card {card.code} dealt to the {hand} hand, but the {expected} hand is next")
        (self.player if expected == PLAYER else self.banker).append(card)
        self.order.append((expected, card))
        return expected

    def result(self) -> CoupResult:
        if not self.complete:
            raise DealingError(f"the coup is not complete: the {self.next_hand()} hand takes another card")
        return CoupResult(player=tuple(self.player), banker=tuple(self.banker))


def dealer_announcement(deal: CoupDeal) -> str:
    """What the tableau says comes next, as the dealer announces it (the dealer console shows it)."""
    dealt, hand = len(deal.order), deal.next_hand()
    if dealt < 4:
        return f"Card {dealt + 1} to the {hand.capitalize()}"
    if dealt == 4 and (is_natural(hand_total(deal.player)) or is_natural(hand_total(deal.banker))):
        announcement = "Natural: both hands stand"
    elif dealt == 4:
        banker = "Banker draws" if hand == BANKER else "Banker stands"
        announcement = "Player draws" if hand == PLAYER else f"Player stands, {banker}"
    elif hand == BANKER:
        announcement = "Banker draws"
    else:
        announcement = "Banker stands" if len(deal.banker) == 2 else "Both hands complete"
    return announcement if hand else f"{announcement}. Resolve the coup."


RESULT_NAMES = {PLAYER: "Player wins", BANKER: "Banker wins", TIE: "Tie"}


def result_announcement(*, winner: str, player_total: int, banker_total: int) -> str:
    """The result as it is announced, the winner's total first: "Banker wins 9 to 5", "Tie 6 to 6". The staff
    screens say it so; the player's page says it in its own language by the same rule (static/js/results.js), both
    held to one table of cases (tests/js/fixtures/result-announcements.json)."""
    high, low = (player_total, banker_total) if winner == PLAYER else (banker_total, player_total)
    return f"{RESULT_NAMES[winner]} {high} to {low}"


def deal_coup(draw: Callable[[], Card]) -> CoupResult:
    """Deal a whole coup, taking each card from ``draw``."""
    deal = CoupDeal()
    while not deal.complete:
        deal.add(draw())
    return deal.result()


def resolve(cards: list[Card] | tuple[Card, ...]) -> CoupResult:
    """Resolve a coup from its cards in dealing order (all of them, no more)."""
    source = iter(cards)
    deal = CoupDeal()
    while not deal.complete:
        try:
            deal.add(next(source))
        except StopIteration:
            raise DealingError(f"{len(cards)} cards are too few: the {deal.next_hand()} hand takes another") from None
    if len(deal.order) != len(cards):
        raise DealingError(f"{len(cards)} cards given but the coup takes {len(deal.order)}")
    return deal.result()


def resolve_hands(player: list[Card] | tuple[Card, ...], banker: list[Card] | tuple[Card, ...]) -> CoupResult:
    """Resolve a coup from each hand's cards: two or three each, and a third card only where the tableau draws it."""
    for name, cards in ((PLAYER, player), (BANKER, banker)):
        if not 2 <= len(cards) <= 3:
            raise DealingError(f"the {name} hand has {len(cards)} cards: a hand has two or three")
    deal = CoupDeal()
    for hand, card in CoupResult(player=tuple(player), banker=tuple(banker)).dealing_order():
        if deal.complete:
            raise DealingError(f"the {hand} hand cannot take a third card ({card.code}): the tableau stands")
        deal.add(card, hand)
    return deal.result()
