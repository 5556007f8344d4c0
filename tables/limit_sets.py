"""A table's limits, per currency (a limit set each: the maximum differential and every bet type's
limits). A table takes bets only in the currencies it has a set for; the pit boss adds a currency,
changes its differential and its limits. One transaction each, validated and audited; changes take
effect at the next coup (each coup plays by its own snapshot)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from baccarat import rules as game_rules
from kernel.currencies import CurrencyInvalid, currency_checked
from kernel.errors import ErrorCode
from kernel.money import AmountInvalid, amount_parse
from tables.audit import audit_record
from tables.errors import TableError
from tables.locks import table_locked
from tables.models import BetLimit, LimitSet, Table

User = AbstractBaseUser

# Every bet type's (minimum, maximum, table-wide maximum) in a new limit set, in its currency's units.
DEFAULT_LIMITS = {
    "player": ("1.00", "1000.00", None),
    "banker": ("1.00", "1000.00", None),
    "tie": ("1.00", "100.00", "500.00"),
    "player_pair": ("1.00", "50.00", "500.00"),
    "banker_pair": ("1.00", "50.00", "500.00"),
    "either_pair": ("1.00", "50.00", "500.00"),
    "perfect_pair": ("1.00", "25.00", "250.00"),
    "player_bonus": ("1.00", "50.00", "500.00"),
    "banker_bonus": ("1.00", "50.00", "500.00"),
    "small": ("1.00", "100.00", "1000.00"),
    "big": ("1.00", "100.00", "1000.00"),
}
DEFAULT_MAX_DIFFERENTIAL = Decimal("5000.00")


def table_amount(value: object, what: str) -> Decimal:
    """An amount a floor service was given, or the ``TableError`` saying why it is not one."""
    try:
        return amount_parse(value, what=what)
    except AmountInvalid as error:
        raise TableError(error.message, code=error.code) from None


def _currency(code: object) -> str:
    try:
        return currency_checked(code)
    except CurrencyInvalid as error:
        raise TableError(str(error), code=ErrorCode.CURRENCY_INVALID) from None


def limit_set_write(*, table: Table, currency: str, max_differential: Decimal) -> LimitSet:
    """A new limit set with the default limits, in the caller's transaction (``table_create``'s first one)."""
    limit_set = LimitSet.objects.create(table=table, currency=currency, max_differential=max_differential)
    BetLimit.objects.bulk_create(
        BetLimit(
            limit_set=limit_set,
            bet_type=bet,
            minimum=Decimal(low),
            maximum=Decimal(high),
            table_maximum=table_high and Decimal(table_high),
        )
        for bet, (low, high, table_high) in DEFAULT_LIMITS.items()
    )
    return limit_set


@transaction.atomic
def limit_set_create(
    *, table: Table, actor: User | None, currency: object, max_differential: object, reason: str = ""
) -> LimitSet:
    """The table takes bets in one more currency, with the default limits until the pit boss sets them."""
    code = _currency(currency)
    differential = table_amount(max_differential, "the maximum differential")
    table = table_locked(table.pk)
    if table.limit_sets.filter(currency=code).exists():
        raise TableError(f"table {table.code} already has limits in {code}", code=ErrorCode.LIMIT_SET_EXISTS)
    limit_set = limit_set_write(table=table, currency=code, max_differential=differential)
    audit_record(
        action="limit_set_created",
        actor=actor,
        table=table,
        obj=limit_set,
        after={"currency": code, "max_differential": str(differential)},
        reason=reason,
    )
    return limit_set


def _limit_set_locked(table: Table, currency: object) -> LimitSet:
    code = _currency(currency)
    limit_set = LimitSet.objects.select_for_update(of=("self",)).filter(table=table, currency=code).first()
    if limit_set is None:
        raise TableError(
            f"table {table.code} has no limits in {code}: add the currency first", code=ErrorCode.CURRENCY_NOT_OFFERED
        )
    return limit_set


@transaction.atomic
def limit_set_update(
    *, table: Table, actor: User | None, currency: object, max_differential: object, reason: str = ""
) -> LimitSet:
    """The maximum differential of the table's limits in the currency (seed 000 §6.1)."""
    differential = table_amount(max_differential, "the maximum differential")
    limit_set = _limit_set_locked(table, currency)
    before = {"currency": limit_set.currency, "max_differential": str(limit_set.max_differential)}
    limit_set.max_differential = differential
    limit_set.save(update_fields=["max_differential"])
    audit_record(
        action="limit_set_changed",
        actor=actor,
        table=table,
        obj=limit_set,
        before=before,
        after={"currency": limit_set.currency, "max_differential": str(differential)},
        reason=reason,
    )
    return limit_set


@transaction.atomic
def bet_limit_set(
    *,
    table: Table,
    actor: User | None,
    bet_type: str,
    minimum: object,
    maximum: object,
    table_maximum: object = None,
    currency: object = None,
    reason: str = "",
) -> BetLimit:
    """One bet type's limits in the currency (the house currency unless named)."""
    if bet_type not in game_rules.MAIN_BETS + game_rules.SIDE_BETS:
        raise TableError(f"unknown bet type {bet_type!r}", code=ErrorCode.UNKNOWN_BET_TYPE)
    low, high = table_amount(minimum, "the minimum"), table_amount(maximum, "the maximum")
    if high < low:
        raise TableError(f"the maximum {high} is below the minimum {low}", code=ErrorCode.MAXIMUM_BELOW_MINIMUM)
    table_high = None if table_maximum in (None, "") else table_amount(table_maximum, "the table maximum")
    limit_set = _limit_set_locked(table, settings.HOUSE_CURRENCY if currency is None else currency)
    limit = BetLimit.objects.select_for_update(of=("self",)).filter(limit_set=limit_set, bet_type=bet_type).first()
    before = (
        None
        if limit is None
        else {"min": str(limit.minimum), "max": str(limit.maximum), "table_max": str(limit.table_maximum)}
    )
    limit = limit or BetLimit(limit_set=limit_set, bet_type=bet_type)
    limit.minimum, limit.maximum, limit.table_maximum = low, high, table_high
    limit.save()
    after = {
        "currency": limit_set.currency,
        "bet_type": bet_type,
        "min": str(low),
        "max": str(high),
        "table_max": str(table_high),
    }
    audit_record(action="limit_changed", actor=actor, table=table, obj=limit, before=before, after=after, reason=reason)
    return limit
