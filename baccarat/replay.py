"""Playing a recorded shoe order (as a card reader records it) through the rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from baccarat.cards import Card
from baccarat.coup import CoupResult
from baccarat.rules import CUT_ONE_MORE_COUP
from baccarat.shoe import Burn, ShoeDealer

CARDS_BEHIND_CUT_CARD = 52


@dataclass(frozen=True)
class ShoeReplay:
    burn: Burn
    coups: tuple[CoupResult, ...]
    cards_left: int

    def as_dict(self) -> dict:
        return {
            "burn": {"shown": self.burn.shown.code, "burned": [card.code for card in self.burn.burned]},
            "coups": [{"number": number, **coup.as_dict()} for number, coup in enumerate(self.coups, start=1)],
            "cards_left": self.cards_left,
        }


def replay_shoe(
    cards: Sequence[Card], *, cut_card_position: int | None = None, cut_card_rule: str = CUT_ONE_MORE_COUP
) -> ShoeReplay:
    """Burn, then deal coups until the cut card rule ends the shoe.

    ``cut_card_position``: how many cards stand before the cut card (default: all but the
    last 52). Raises ``ShoeExhausted`` if the cards run out in the middle of a coup.
    """
    if cut_card_position is None:
        cut_card_position = max(len(cards) - CARDS_BEHIND_CUT_CARD, 0)
    if cut_card_position < 0:
        raise ValueError(f"the cut card position must not be negative, not {cut_card_position}")
    dealer = ShoeDealer(cards, cut_card_position=cut_card_position, cut_card_rule=cut_card_rule)
    burn = dealer.burn()
    coups = []
    while not dealer.finished:
        coups.append(dealer.deal_coup())
    return ShoeReplay(burn=burn, coups=tuple(coups), cards_left=dealer.cards_left)
