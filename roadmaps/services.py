"""Road state writes: a resolved coup is added to its shoe's roads and the roads are pushed."""

from __future__ import annotations

from django.db import transaction

from roadmaps.events import table_event_send
from roadmaps.models import ShoeRoad
from roadmaps.roads import BANKER, PLAYER, TIE, Coup, Roadmap
from tables.models import Coup as TableCoup

_RESULT_LETTER = {"banker": BANKER, "player": PLAYER, "tie": TIE}


def coup_token(coup: TableCoup) -> str:
    return (
        _RESULT_LETTER[coup.winner]
        + ("b" if coup.banker_pair else "")
        + ("p" if coup.player_pair else "")
        + ("n" if coup.natural else "")
    )


def coups_from_sequence(sequence: str) -> list[Coup]:
    return [
        Coup(result=token[0], banker_pair="b" in token, player_pair="p" in token, natural="n" in token)
        for token in sequence.split()
    ]


def roadmap_of(sequence: str) -> Roadmap:
    roadmap = Roadmap()
    for coup in coups_from_sequence(sequence):
        roadmap.add(coup)
    return roadmap


@transaction.atomic
def shoe_road_add_coup(*, coup: TableCoup) -> ShoeRoad:
    """Add a resolved coup to its shoe's roads and push them to the table on commit."""
    road, _ = ShoeRoad.objects.select_for_update().get_or_create(shoe_id=coup.shoe_id)
    road.sequence = f"{road.sequence} {coup_token(coup)}".strip()
    road.roadmap = roadmap_of(road.sequence).to_dict()
    road.save(update_fields=["sequence", "roadmap", "updated_at"])
    table_event_send(table_code=coup.table.code, event_type="roads", data={"shoe": coup.shoe.number, **road.roadmap})
    return road
