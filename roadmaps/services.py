"""Road state writes: a resolved coup is added to its shoe's roads and the roads are pushed."""

from __future__ import annotations

from django.db import transaction

from baccarat.roads import build_roadmap
from kernel.live import table_event_send
from roadmaps.models import ShoeRoad
from roadmaps.selectors import shoe_road_coups
from tables.models import Coup


@transaction.atomic
def shoe_road_add_coup(*, coup: Coup) -> ShoeRoad:
    """Bring the shoe's roads up to date with a resolved coup and push them to the table on commit."""
    road, _ = ShoeRoad.objects.select_for_update(of=("self",)).get_or_create(shoe_id=coup.shoe_id)
    road.roadmap = build_roadmap(shoe_road_coups(shoe_id=coup.shoe_id))
    road.save(update_fields=["roadmap", "updated_at"])
    table_event_send(table_code=coup.table.code, event_type="roads", data={"shoe": coup.shoe.number, **road.roadmap})
    return road
