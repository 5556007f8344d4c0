"""Reads of the cards that have come out of a shoe face up: what anyone at the table has seen.

Never the shoe's recorded order, nor its burned cards (face down, encrypted until the shoe is out of play).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from baccarat.cards import Card
from tables.models import DealtCard, HeldCard, ResultCorrection, Shoe


@dataclass(frozen=True)
class SeenCards:
    """A shoe's face-up cards: the burn card shown, and each coup's cards (by coup id)."""

    burn_shown: Card | None
    by_coup: dict[int, list[Card]] = field(default_factory=dict)

    def count(self) -> int:
        return (self.burn_shown is not None) + sum(map(len, self.by_coup.values()))


def shoes_seen_cards(*, shoes: Iterable[Shoe]) -> dict[int, SeenCards]:
    """Every face-up card of each shoe, by shoe id, in three queries whatever the number of shoes.

    A coup's cards are its dealt cards or, after an approved result correction, the corrected ones (the
    cards that were really on the layout). A card entered for the wrong hand counts in the coup it was
    entered in, until it is dealt (then it is a dealt card like any other).
    """
    seen = {shoe.pk: SeenCards(burn_shown=Card.parse(shoe.burn_shown) if shoe.burn_shown else None) for shoe in shoes}
    shoe_ids = list(seen)
    cards: dict[int, dict[int, list[Card]]] = defaultdict(lambda: defaultdict(list))
    dealt = DealtCard.objects.filter(shoe_id__in=shoe_ids).order_by("shoe_position")
    for shoe_id, coup_id, code in dealt.values_list("shoe_id", "coup_id", "card"):
        cards[shoe_id][coup_id].append(Card.parse(code))
    corrections = ResultCorrection.objects.filter(
        coup__shoe_id__in=shoe_ids, coup__corrected_at__isnull=False, state=ResultCorrection.State.APPROVED
    ).order_by("decided_at", "pk")  # the latest approved correction of a coup is the last one read
    for shoe_id, coup_id, player, banker in corrections.values_list(
        "coup__shoe_id", "coup_id", "player_cards", "banker_cards"
    ):
        cards[shoe_id][coup_id] = [Card.parse(code) for code in f"{player} {banker}".split()]
    held = HeldCard.objects.filter(shoe_id__in=shoe_ids, dealt_card__isnull=True).order_by("shoe_position")
    for shoe_id, coup_id, code in held.values_list("shoe_id", "coup_id", "card"):
        cards[shoe_id][coup_id].append(Card.parse(code))
    for shoe_id, by_coup in cards.items():
        seen[shoe_id].by_coup.update(by_coup)
    return seen
