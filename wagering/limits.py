"""Bet limits and the maximum differential, checked against the coup's totals before and after a
batch (seed 002): the rules of what a placement may add."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser

from baccarat.coup import BANKER, PLAYER
from baccarat.rules import BetLimits
from kernel.errors import ErrorCode
from tables.models import PersonalLimitMarker
from wagering.amounts import bet_label
from wagering.errors import BetRejected
from wagering.models import (
    ZERO,
)

User = AbstractBaseUser


def bet_limits_check(
    *,
    bet_type: str,
    limit: BetLimits,
    marker: PersonalLimitMarker | None,
    own: tuple[Decimal, Decimal],
    table: tuple[Decimal, Decimal],
) -> None:
    """The player's total on the bet within their limits (``marker``: the personal limit marker covering this
    bet type in the stakes' currency, whose limits replace the table's),
    and the table's total within the table-wide maximum (tie and side bets, seed 000 §6.1.3)."""
    source, minimum, maximum = (
        ("personal limit", marker.minimum, marker.maximum) if marker else ("table", limit.minimum, limit.maximum)
    )
    own_before, own_after = own
    label = bet_label(bet_type)
    details = {"bet_type": bet_type, "limit": source, "minimum": str(minimum), "maximum": str(maximum)}
    if own_after < minimum:
        raise BetRejected(
            f"{label}: {own_after} is under the {source} minimum of {minimum} by {minimum - own_after}",
            code=ErrorCode.BELOW_MINIMUM,
            details={**details, "total": str(own_after), "short_by": str(minimum - own_after)},
        )
    if own_after > maximum:
        room = max(maximum - own_before, ZERO)
        raise BetRejected(
            f"{label}: {own_after} is over the {source} maximum of {maximum} by {own_after - maximum}; "
            f"at most {room} more can be accepted",
            code=ErrorCode.ABOVE_MAXIMUM,
            details={
                **details,
                "total": str(own_after),
                "over_by": str(own_after - maximum),
                "max_additional": str(room),
            },
        )
    table_before, table_after = table
    if limit.table_maximum is not None and table_after > limit.table_maximum:
        room = max(limit.table_maximum - table_before, ZERO)
        raise BetRejected(
            f"{label}: the table's total would be {table_after}, over the table-wide maximum of "
            f"{limit.table_maximum} by {table_after - limit.table_maximum}; at most {room} more can be accepted",
            code=ErrorCode.TABLE_MAXIMUM,
            details={
                "bet_type": bet_type,
                "table_maximum": str(limit.table_maximum),
                "table_total": str(table_after),
                "over_by": str(table_after - limit.table_maximum),
                "max_additional": str(room),
            },
        )


def differential_check(
    *, limit: Decimal, currency: str, before: Mapping[str, Decimal], after: Mapping[str, Decimal]
) -> None:
    """|Banker - Player| over the whole table's stakes in the currency within its maximum differential
    (seed 000 §6.1; tie and side bets apart, §6.1.3). A change that does not widen the gap is always allowed.
    The refusal says how much more each side could take as the table stands (§6.1.2)."""
    player_before, banker_before = before.get(PLAYER, ZERO), before.get(BANKER, ZERO)
    player, banker = after.get(PLAYER, ZERO), after.get(BANKER, ZERO)
    gap = abs(banker - player)
    if gap <= limit or gap <= abs(banker_before - player_before):
        return
    player_room = max(banker_before + limit - player_before, ZERO)
    banker_room = max(player_before + limit - banker_before, ZERO)
    raise BetRejected(
        f"Banker {banker} against Player {player} would be over the table's maximum differential of {limit} "
        f"{currency} by {gap - limit}: at most {player_room} more on Player or {banker_room} more on Banker",
        code=ErrorCode.MAX_DIFFERENTIAL,
        details={
            "max_differential": str(limit),
            "currency": currency,
            "player_total": str(player),
            "banker_total": str(banker),
            "over_by": str(gap - limit),
            "player_max_additional": str(player_room),
            "banker_max_additional": str(banker_room),
        },
    )
