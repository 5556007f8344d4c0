"""What a player's protection stands at (reads only): the row's values as plain data, and the money it counts,
net losses and deposits per period, read only for the players who have such a limit."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import cache

from django.db import connection
from django.db.models import DecimalField, ExpressionWrapper, F, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils.dateparse import parse_datetime

from kernel.lookups import AnyOf, rows_any_of
from kernel.money import MONEY
from kernel.raw_rows import columns_sql, for_update, orm_values
from wagering.models import (
    LIMIT_FIELDS,
    ZERO,
    Account,
    Bet,
    BetAdjustment,
    LedgerEntry,
    LedgerTransaction,
    PlayerProtection,
    money,
)
from wagering.protection.periods import PERIODS, period_bounds


@dataclass(frozen=True)
class Protection:
    """A player's protection at ``at``: the limits in force (a pending looser one applied once its cooling-off
    is over), their breaks from play and their session's."""

    user_id: int
    at: datetime
    deposit: dict[str, Decimal]  # period -> limit, only the periods limited
    loss: dict[str, Decimal]
    session_minutes: int | None
    reality_check_minutes: int | None
    pending: dict[str, dict]  # field -> {"value", "effective_at"}, still cooling off
    timed_out_until: datetime | None
    self_excluded_until: datetime | None
    operator_excluded_at: datetime | None
    session_started_at: datetime | None
    session_ends_at: datetime | None
    session_loss_limit: Decimal | None
    reality_check_every: int | None
    reality_check_due_at: datetime | None

    def limit(self, name: str) -> Decimal | int | None:
        """The limit in force named as its field (``LIMIT_FIELDS``: "loss_day", "session_minutes"...), or None."""
        if name == "session_minutes":
            return self.session_minutes
        kind, period = name.split("_")
        return (self.deposit if kind == "deposit" else self.loss).get(period)

    @property
    def loss_limited(self) -> bool:
        return bool(self.loss) or self.session_loss_limit is not None

    def loss_windows(self) -> dict[str, tuple[Decimal, datetime, datetime | None]]:
        """Each loss limit as (limit, counted since, resets at): the calendar periods', and the session's
        (reset by the next session)."""
        windows: dict[str, tuple[Decimal, datetime, datetime | None]] = {}
        for period, limit in self.loss.items():
            start, end = period_bounds(period=period, at=self.at)
            windows[period] = (limit, start, end)
        if self.session_loss_limit is not None and self.session_started_at is not None:
            windows["session"] = (self.session_loss_limit, self.session_started_at, None)
        return windows


def protection_read(row: PlayerProtection | Mapping, *, at: datetime) -> Protection:
    """The row as ``Protection`` at ``at`` (a model instance or its ``values()``)."""
    values = row if isinstance(row, Mapping) else row.__dict__
    in_force = {name: values[name] for name in LIMIT_FIELDS}
    pending = {}
    for name, change in (values["pending"] or {}).items():
        if parse_datetime(change["effective_at"]) <= at:
            in_force[name] = None if change["value"] is None else _limit_value(name, change["value"])
        else:
            pending[name] = change
    return Protection(
        user_id=values["user_id"],
        at=at,
        deposit={p: money(in_force[f"deposit_{p}"]) for p in PERIODS if in_force[f"deposit_{p}"] is not None},
        loss={p: money(in_force[f"loss_{p}"]) for p in PERIODS if in_force[f"loss_{p}"] is not None},
        session_minutes=in_force["session_minutes"],
        reality_check_minutes=values["reality_check_minutes"],
        pending=pending,
        timed_out_until=values["timed_out_until"],
        self_excluded_until=values["self_excluded_until"],
        operator_excluded_at=values["operator_excluded_at"],
        session_started_at=values["session_started_at"],
        session_ends_at=values["session_ends_at"],
        session_loss_limit=None if values["session_loss_limit"] is None else money(values["session_loss_limit"]),
        reality_check_every=values["reality_check_every"],
        reality_check_due_at=values["reality_check_due_at"],
    )


_COLUMNS = (
    "user_id",
    *LIMIT_FIELDS,
    "reality_check_minutes",
    "pending",
    "timed_out_until",
    "self_excluded_until",
    "operator_excluded_at",
    "session_started_at",
    "session_ends_at",
    "session_loss_limit",
    "reality_check_every",
    "reality_check_due_at",
)


def _limit_value(name: str, value: str) -> Decimal | int:
    return int(value) if name == "session_minutes" else money(Decimal(value))


def players_protection(*, user_ids: Collection[int], at: datetime, lock: bool = False) -> dict[int, Protection]:
    """The protection of those of these players who have any, by user id: one raw statement (``kernel.raw_rows``:
    every socket's connect and every bet batch reads it, twice under the coup's lock), ``lock``: their rows
    locked by it, in primary-key order, as ``select_for_update`` would (inside a transaction only)."""
    then = ""
    if lock:
        then = f" ORDER BY {columns_sql(PlayerProtection, [PlayerProtection._meta.pk.name], alias='p')}{for_update()}"
    rows = [
        dict(zip(_COLUMNS, orm_values(PlayerProtection, _COLUMNS, row), strict=True))
        for row in rows_any_of(_protection_sql(), "p.user_id", user_ids, then=then)
    ]
    return {row["user_id"]: protection_read(row, at=at) for row in rows}


@cache
def _protection_sql() -> str:
    table = connection.ops.quote_name(PlayerProtection._meta.db_table)  # names of ours, not input
    return f"SELECT {columns_sql(PlayerProtection, _COLUMNS, alias='p')} FROM {table} p WHERE TRUE"  # noqa: S608


def player_protection(*, user_id: int, at: datetime) -> Protection | None:
    return players_protection(user_ids=[user_id], at=at).get(user_id)


def bet_returned() -> Coalesce:
    """What a bet returned, as an expression over ``Bet`` rows: its corrected result's latest adjustment, else its
    settlement; nothing while open or cancelled."""
    corrected = BetAdjustment.objects.filter(bet=OuterRef("pk")).order_by("-pk").values("returned_after")[:1]
    return Coalesce(Subquery(corrected), F("settlement__returned"), Value(ZERO), output_field=DecimalField(**MONEY))


def players_losses(*, protections: Collection[Protection]) -> dict[int, dict[str, Decimal]]:
    """Each loss-limited player's net loss in each window of their limits (``Protection.loss_windows``):
    what their bets placed since its start staked, less what they returned (a corrected result's latest
    adjustment, else the settlement). An open bet counts as lost until settled (a bet is refused if losing it
    could pass the limit); a cancelled one not at all. One query for all the players, a row each."""
    windows = {p.user_id: p.loss_windows() for p in protections if p.loss_limited}
    if not windows:
        return {}
    at = next(p.at for p in protections if p.user_id in windows)
    starts = {period: period_bounds(period=period, at=at)[0] for period in PERIODS}
    money_field = DecimalField(**MONEY)
    lost = ExpressionWrapper(F("stake") - bet_returned(), output_field=money_field)
    sums = {period: Sum(lost, filter=Q(created_at__gte=start)) for period, start in starts.items()}
    sums["session"] = Sum(lost, filter=Q(created_at__gte=F("user__protection__session_started_at")))
    earliest = min(start for by_window in windows.values() for _, start, _ in by_window.values())
    rows = (
        Bet.objects.filter(AnyOf(F("user_id"), windows), created_at__gte=earliest)
        .exclude(state=Bet.State.CANCELLED)
        .values("user_id")
        .annotate(**sums)
        .order_by()
    )
    found = {row["user_id"]: row for row in rows}
    return {
        user_id: {name: money(found.get(user_id, {}).get(name) or ZERO) for name in by_window}
        for user_id, by_window in windows.items()
    }


def player_deposits(*, protection: Protection) -> dict[str, Decimal]:
    """What the player deposited in each period they limit deposits in."""
    if not protection.deposit:
        return {}
    money_field = DecimalField(**MONEY)
    starts = {period: period_bounds(period=period, at=protection.at)[0] for period in protection.deposit}
    sums = LedgerEntry.objects.filter(
        account__user_id=protection.user_id,
        account__kind=Account.Kind.PLAYER,
        transaction__kind=LedgerTransaction.Kind.DEPOSIT,
        transaction__created_at__gte=min(starts.values()),
    ).aggregate(
        **{
            period: Coalesce(
                Sum("amount", filter=Q(transaction__created_at__gte=start)), Value(ZERO), output_field=money_field
            )
            for period, start in starts.items()
        }
    )
    return {period: money(sums[period]) for period in starts}
