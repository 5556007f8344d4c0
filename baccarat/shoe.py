"""The shoe: shuffle, burn and the cut card rule.

The cut card stands ``cut_card_position`` cards from the top. It "comes out" when the
card at that index is about to be drawn. Seed 001 (default): if it comes out in place of
a coup's first card, that coup is the last; if it comes out during a coup, that coup is
finished and one more is played. Seed 000's variant ends the shoe after the current coup.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from random import Random

from baccarat.cards import RANKS, SUITS, Card, decks
from baccarat.coup import CoupDeal, CoupResult
from baccarat.rules import CUT_END_OF_COUP, CUT_ONE_MORE_COUP


class ShoeExhausted(Exception):
    """The shoe ran out of cards in the middle of a coup."""


class ShoeFinished(Exception):
    """The cut card rule has ended the shoe: no more coups."""


def shuffle(cards: Sequence[Card], *, rng: Random | None = None) -> list[Card]:
    """An unbiased Fisher–Yates shuffle with the OS CSPRNG (``secrets.SystemRandom``)."""
    rng = rng or secrets.SystemRandom()
    order = list(cards)
    for i in range(len(order) - 1, 0, -1):
        j = rng.randrange(i + 1)  # randrange rejects out-of-range bits: no modulo bias
        order[i], order[j] = order[j], order[i]
    return order


def new_shoe_order(deck_count: int = 8, *, rng: Random | None = None) -> list[Card]:
    if not 1 <= deck_count <= 8:
        raise ValueError(f"a shoe holds 1 to 8 decks, not {deck_count}")
    return shuffle(decks(deck_count), rng=rng)


def cut_card_position(*, deck_count: int, cards_behind: int) -> int:
    """Where the cut card goes: the cards dealt before it, with ``cards_behind`` left behind it (seed 000 §3.2)."""
    total = deck_count * len(RANKS) * len(SUITS)
    if not 0 <= cards_behind <= total:
        raise ValueError(f"a cut card leaves 0 to {total} of the {total} cards behind it, not {cards_behind}")
    return total - cards_behind


def burn_count(shown: Card) -> int:
    """How many cards the shown card burns: its value, ten for a 10 or a face card."""
    return shown.value or 10


@dataclass(frozen=True)
class Burn:
    shown: Card
    burned: tuple[Card, ...]

    @property
    def cards(self) -> tuple[Card, ...]:
        return (self.shown, *self.burned)


@dataclass
class ShoeState:
    """Where a shoe stands; enough to carry on after a restart."""

    position: int = 0
    coups_started: int = 0
    cards_in_coup: int = 0
    last_coup: int | None = None  # set when the cut card comes out


class ShoeDealer:
    """Deals from a shoe's card order, keeping the cut card rule."""

    def __init__(
        self,
        cards: Sequence[Card],
        *,
        cut_card_position: int,
        cut_card_rule: str = CUT_ONE_MORE_COUP,
        state: ShoeState | None = None,
    ) -> None:
        self.cards = list(cards)
        self.cut_card_position = cut_card_position
        self.cut_card_rule = cut_card_rule
        self.state = state or ShoeState()

    @property
    def cards_left(self) -> int:
        return len(self.cards) - self.state.position

    @property
    def cut_card_out(self) -> bool:
        return self.state.position > self.cut_card_position or self.state.last_coup is not None

    @property
    def finished(self) -> bool:
        """No further coup may start: the cut card rule ended the shoe, or no card is left."""
        if self.state.cards_in_coup:
            return False
        last = self.state.last_coup
        return (last is not None and self.state.coups_started >= last) or self.cards_left == 0

    def _take(self) -> Card:
        if self.state.position >= len(self.cards):
            raise ShoeExhausted(f"the shoe ran out of cards after {len(self.cards)} cards")
        card = self.cards[self.state.position]
        self.state.position += 1
        return card

    def _cut_card_comes_out(self) -> bool:
        return self.state.last_coup is None and self.state.position == self.cut_card_position

    def burn(self) -> Burn:
        """Show the first card and burn as many more (seed 000 §3.1.1)."""
        if self.state.position or self.state.coups_started:
            raise ValueError("the burn comes before the first coup")
        if self._cut_card_comes_out():
            self.state.last_coup = 1
        shown = self._take()
        burned = []
        for _ in range(burn_count(shown)):
            if self._cut_card_comes_out():
                self.state.last_coup = 1
            burned.append(self._take())
        return Burn(shown=shown, burned=tuple(burned))

    def begin_coup(self) -> int:
        """Start the next coup and return its number in the shoe."""
        if self.finished:
            raise ShoeFinished("the shoe is finished: the cut card has come out")
        if self.state.cards_in_coup:
            raise ValueError("the previous coup is not finished")
        self.state.coups_started += 1
        return self.state.coups_started

    def draw(self) -> Card:
        """The next card of the current coup, noting the cut card if it comes out now."""
        if not self.state.coups_started:
            raise ValueError("no coup has begun")
        if self._cut_card_comes_out():
            coup = self.state.coups_started
            first_card = self.state.cards_in_coup == 0
            self.state.last_coup = coup if first_card or self.cut_card_rule == CUT_END_OF_COUP else coup + 1
        card = self._take()
        self.state.cards_in_coup += 1
        return card

    def end_coup(self) -> None:
        self.state.cards_in_coup = 0

    def deal_coup(self) -> CoupResult:
        """Begin, deal and end one whole coup."""
        self.begin_coup()
        deal = CoupDeal()
        while not deal.complete:
            deal.add(self.draw())
        self.end_coup()
        return deal.result()
