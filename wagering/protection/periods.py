"""The calendar periods a limit counts in: the day, the week (from Monday) and the month, in the zone the
operator's market counts them in (``PLAYER_PROTECTION_TIME_ZONE``, the server's by default). A limit resets
at its period's end."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings

PERIODS = ("day", "week", "month")


def period_bounds(*, period: str, at: datetime) -> tuple[datetime, datetime]:
    """The period holding ``at``: its start and its end (the next one's start), timezone-aware."""
    local = at.astimezone(ZoneInfo(settings.PLAYER_PROTECTION_TIME_ZONE))
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "day":
        start, end = midnight, midnight + timedelta(days=1)
    elif period == "week":
        start = midnight - timedelta(days=midnight.weekday())
        end = start + timedelta(days=7)
    elif period == "month":
        start = midnight.replace(day=1)
        end = (start + timedelta(days=32)).replace(day=1)
    else:
        raise ValueError(f"no period {period!r}")
    return start, end  # wall-clock midnights: an aware datetime's arithmetic keeps the zone's offsets right
