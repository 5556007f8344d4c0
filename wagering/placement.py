"""Placing bets: a batch (bet type → stake) on a coup taking bets, all accepted or none, within the
table's and the player's limits; written by the ORM or, on PostgreSQL, in one statement."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache, cached_property

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from baccarat.coup import BANKER, PLAYER
from baccarat.rules import MAIN_BETS, SIDE_BETS, CoupRules
from kernel.errors import ErrorCode
from kernel.live import table_totals_send
from kernel.money import MAX_AMOUNT
from kernel.raw_rows import columns_sql, for_update, orm_values, prepared_cursor
from tables.models import Coup
from tables.selectors import coup_rules
from wagering.amounts import amount_checked, bet_label
from wagering.errors import BetConflict, BetRejected
from wagering.limits import bet_limits_check, differential_check
from wagering.models import (
    ZERO,
    Bet,
    BetBatch,
    money,
)
from wagering.placement_standing import placement_standing
from wagering.placement_writers import (
    BalanceBound,
    PartnerFunds,
    bettors_joined,
    placement_write_from_float,
    placement_writer,
)
from wagering.protection.guard import bet_protection_check
from wagering.selectors import (
    PlayerMarkers,
    coup_totals_public,
    largest_return,
    open_bets_largest_return,
    wallet_balance,
)
from wagering.wallets import wallet_event_send

User = AbstractBaseUser
REBET_MULTIPLIERS = (1, 2)


def bet_batch_place(
    *, user: User, coup: Coup, bets: Mapping[str, Decimal | int | str], from_partner: PartnerFunds | None = None
) -> PlacedBatch:
    """Confirm a batch of bets (bet type -> stake) on the coup: all accepted, or none (``BetRejected``).

    The stakes come from the player's wallet, in its currency; with ``from_partner``, from that partner's
    seamless wallet, already debited there."""
    stakes = bet_stakes_checked(bets)
    return _batch_place(user=user, coup=coup, stakes=stakes, action="bet_batch_placed", from_partner=from_partner)


@transaction.atomic
def bet_batch_check(
    *, user: User, coup: Coup, bets: Mapping[str, Decimal | int | str], from_partner: PartnerFunds
) -> dict[str, Decimal]:
    """Every check of a placement from a partner's wallet, writing nothing: run before the partner is asked
    to debit the player (``BetRejected`` if the bets would be refused). The stakes, as checked."""
    stakes = bet_stakes_checked(bets)
    _batch_checked(user=user, coup=coup, stakes=stakes, currency=from_partner.currency, from_partner=True)
    return stakes


def bet_stakes_checked(bets: Mapping[str, Decimal | int | str]) -> dict[str, Decimal]:
    if not bets:
        raise BetRejected("there are no bets to confirm", code=ErrorCode.EMPTY_BATCH)
    stakes = {}
    for bet_type, stake in bets.items():
        if bet_type not in MAIN_BETS + SIDE_BETS:
            raise BetRejected(
                f"there is no bet {bet_type!r}", code=ErrorCode.UNKNOWN_BET_TYPE, details={"bet_type": str(bet_type)}
            )
        stakes[bet_type] = amount_checked(stake, error=BetRejected, what=f"the {bet_label(bet_type)} stake")
    return stakes


def bet_rebet_stakes(*, user: User, coup: Coup, multiplier: int = 1) -> dict[str, Decimal]:
    """Rebet (×1) or Rebet X2: the stakes of the player's bets of their last coup at this table, times that."""
    if type(multiplier) is not int or multiplier not in REBET_MULTIPLIERS:
        raise BetRejected(
            f"rebet is ×1 or ×2, not ×{multiplier}",
            code=ErrorCode.INVALID_MULTIPLIER,
            details={"multiplier": str(multiplier)},
        )
    previous = Bet.objects.filter(user=user, coup__table_id=coup.table_id).exclude(coup_id=coup.pk)
    previous = previous.exclude(state=Bet.State.CANCELLED)
    last_coup_id = previous.order_by("-coup_id").values_list("coup_id", flat=True).first()
    if last_coup_id is None:
        raise BetConflict("there are no earlier bets at this table to repeat", code=ErrorCode.NO_PREVIOUS_BETS)
    rows = previous.filter(coup_id=last_coup_id).values("bet_type").annotate(total=Sum("stake")).order_by()
    return {row["bet_type"]: money(row["total"]) * multiplier for row in rows}


def bet_rebet(*, user: User, coup: Coup, multiplier: int = 1) -> PlacedBatch:
    """Rebet (×1) or Rebet X2: the player's bets of their last coup at this table, again, all or nothing."""
    stakes = bet_rebet_stakes(user=user, coup=coup, multiplier=multiplier)
    return _batch_place(user=user, coup=coup, stakes=stakes, action=f"bet_rebet_x{multiplier}", from_partner=None)


@dataclass(frozen=True)
class PlacedBatch:
    """A confirmed batch as the placement left it, so that callers answer without reading it back. Its rows as
    model instances (``batch``, ``bets``) are made only when asked for (``built``): a group commit's answers
    read its stakes, and the instances cost a fifth of its thread."""

    stakes: dict[str, Decimal]  # the batch's bets: the stake of each bet type
    balance: Decimal | None  # the wallet's, just after (None: the partner's wallet holds the player's money)
    own_totals: dict[str, Decimal]  # the player's stakes on the coup by bet type, this batch included
    currency: str  # of every amount above
    built: Callable[[], tuple[BetBatch, list[Bet]]] = field(repr=False, compare=False)

    @cached_property
    def _instances(self) -> tuple[BetBatch, list[Bet]]:
        return self.built()

    @property
    def batch(self) -> BetBatch:
        return self._instances[0]

    @property
    def bets(self) -> list[Bet]:
        return self._instances[1]


@dataclass(frozen=True)
class _Checked:
    currency: str
    table_after: dict[str, Decimal]
    own_after: dict[str, Decimal]
    bound: BalanceBound
    joined: frozenset[str]  # the bet types the player had no stake on yet
    bettors_after: dict[str, int]  # the table's bettors per bet type, this placement's included


def _batch_checked(
    *, user: User, coup: Coup, stakes: dict[str, Decimal], currency: str | None, from_partner: bool
) -> _Checked:
    """Every rule a placement keeps, read under the coup's lock (the caller's transaction), in the currency
    the stakes are in (None: the player's wallet's): its limits, its differential, the table's totals in it
    (never added to another's)."""
    coup_betting_locked(coup)
    betting_open_check(coup)
    now = timezone.now()
    bet_protection_check(user_id=user.pk, stake=money(sum(stakes.values())), at=now)
    standing = placement_standing(coup=coup, user=user, currency=currency, at=now)
    table_after, own_after = stakes_within_rules(
        rules=coup_rules(coup=coup),
        round_id=coup.round_id,
        currency=standing.currency,
        stakes=stakes,
        marker=standing.marker,
        table=standing.table,
        own=standing.own,
    )
    # A partner's wallet holds the player's money: the bound of our wallets does not apply to it.
    bound = (
        BalanceBound(on_coup=ZERO, elsewhere=ZERO)
        if from_partner
        else BalanceBound(
            on_coup=largest_return(rules=coup.rules, stakes=own_after),
            elsewhere=open_bets_largest_return(stakes_by_coup=standing.elsewhere),
        )
    )
    joined = bettors_joined(stakes=stakes, before=standing.own)
    # Under the lock the running counts move only by this placement's: no read after the write.
    bettors_after = {bet_type: standing.bettors.get(bet_type, 0) + (bet_type in joined) for bet_type in table_after}
    return _Checked(
        currency=standing.currency,
        table_after=table_after,
        own_after=own_after,
        bound=bound,
        joined=joined,
        bettors_after={bet_type: count for bet_type, count in bettors_after.items() if count},
    )


def stakes_within_rules(
    *,
    rules: CoupRules,
    round_id: str,
    currency: str,
    stakes: Mapping[str, Decimal],
    marker: PlayerMarkers | None,
    table: Mapping[str, Decimal],
    own: Mapping[str, Decimal],
    differential_override: bool = False,
) -> tuple[dict[str, Decimal], dict[str, Decimal]]:
    """The table's and the player's stakes on the coup with these added (``table`` and ``own``: before),
    or ``BetRejected``: the currency and bet types on offer, Player and Banker together, the limits (of the
    player's marker covering the bet type in the currency, else the table's), the table-wide maximums and the
    maximum differential. ``rules``: the coup's, ``round_id`` its round."""
    limits = rules.offered_limits(currency)
    if not limits:
        offered = ", ".join(rules.currencies)
        raise BetRejected(
            f"this table takes bets in {offered}, not in {currency}",
            code=ErrorCode.CURRENCY_NOT_OFFERED,
            details={"currency": currency, "offered": offered},
        )
    for bet_type in stakes:
        if bet_type not in limits:
            raise BetRejected(
                f"{bet_label(bet_type)} is not offered on coup {round_id}",
                code=ErrorCode.BET_TYPE_NOT_OFFERED,
                details={"bet_type": bet_type, "offered": ", ".join(limits)},
            )
    table_after = totals_added(table, stakes)
    own_after = totals_added(own, stakes)
    if rules.table.forbid_player_and_banker and own_after.get(PLAYER) and own_after.get(BANKER):
        raise BetRejected(
            f"a player may not bet both Player and Banker in one coup: this would make {own_after[PLAYER]} "
            f"on Player and {own_after[BANKER]} on Banker",
            code=ErrorCode.PLAYER_AND_BANKER,
            details={"player": str(own_after[PLAYER]), "banker": str(own_after[BANKER])},
        )
    for bet_type in stakes:
        bet_limits_check(
            bet_type=bet_type,
            limit=limits[bet_type],
            marker=marker.covering(bet_type=bet_type, currency=currency) if marker else None,
            own=(own.get(bet_type, ZERO), own_after[bet_type]),
            table=(table.get(bet_type, ZERO), table_after[bet_type]),
        )
    limit = rules.currencies[currency].max_differential
    # A pit boss's override (seat chips only, ``wagering.seated``): within their authority, twice the limit.
    differential_check(
        limit=limit * (2 if differential_override else 1), currency=currency, before=table, after=table_after
    )
    return table_after, own_after


@transaction.atomic
def _batch_place(
    *, user: User, coup: Coup, stakes: dict[str, Decimal], action: str, from_partner: PartnerFunds | None
) -> PlacedBatch:
    checked = _batch_checked(
        user=user,
        coup=coup,
        stakes=stakes,
        currency=None if from_partner is None else from_partner.currency,
        from_partner=from_partner is not None,
    )
    currency = checked.currency
    total = money(sum(stakes.values()))
    if from_partner is not None:
        batch, bets = placement_write_from_float(
            user=user,
            coup=coup,
            stakes=stakes,
            total=total,
            action=action,
            partner=from_partner,
            joined=checked.joined,
        )
        built, balance = (lambda: (batch, bets)), None
    else:
        placed = placement_writer()(
            user=user,
            coup=coup,
            stakes=stakes,
            total=total,
            currency=currency,
            action=action,
            bound=checked.bound,
            joined=checked.joined,
        )
        if placed is None:
            raise placement_refusal(balance=wallet_balance(user=user), total=total, bound=checked.bound)
        built, balance = placed
    bets_changed_events(
        coup=coup,
        user_id=user.pk,
        balance=balance,
        own=checked.own_after,
        currency=currency,
        table_totals=checked.table_after,
        bettors=checked.bettors_after,
    )
    return PlacedBatch(
        stakes=stakes,
        balance=balance,
        own_totals=checked.own_after,
        currency=currency,
        built=built,
    )


def placement_refusal(*, balance: Decimal, total: Decimal, bound: BalanceBound) -> BetRejected:
    """Why a placement from a wallet holding ``balance`` wrote nothing: the wallet is short, or could not
    hold what the bets may return."""
    if total > balance:
        return BetRejected(
            f"the bets total {total} but the balance is {balance}: short by {total - balance}",
            code=ErrorCode.INSUFFICIENT_FUNDS,
            details={"balance": str(balance), "required": str(total), "short_by": str(total - balance)},
        )
    over_by = balance - total + bound.largest_return - MAX_AMOUNT
    return BetRejected(
        f"these bets could bring the balance of {balance - total} up by {bound.largest_return} (your bets on this "
        f"coup {bound.on_coup}, your open bets elsewhere {bound.elsewhere}), past {MAX_AMOUNT}, the most a wallet "
        f"holds, by {over_by}: bet less or withdraw first",
        code=ErrorCode.BALANCE_LIMIT,
        details={
            "balance": str(balance),
            "required": str(total),
            "largest_return": str(bound.on_coup),
            "open_largest_return": str(bound.elsewhere),
            "max_balance": str(MAX_AMOUNT),
            "over_by": str(over_by),
        },
    )


def totals_added(totals: Mapping[str, Decimal], stakes: Mapping[str, Decimal]) -> dict[str, Decimal]:
    combined = dict(totals)
    for bet_type, stake in stakes.items():
        combined[bet_type] = combined.get(bet_type, ZERO) + stake
    return combined


def coup_betting_locked(coup: Coup) -> None:
    """Lock the coup's row for a change of its bets, and bring ``coup`` up to date with what can have changed
    since the caller read it: its state, no-bet order and betting deadline (its rules are fixed when it
    opens). Three columns, not the whole row with its table: every bet at the table waits for this lock; in one
    raw statement (``kernel.raw_rows``: the ORM's query cost a bet ten times its running)."""
    with prepared_cursor() as cursor:
        cursor.execute(_coup_betting_read_sql() + for_update(), [coup.pk])
        row = cursor.fetchone()
    if row is None:
        raise Coup.DoesNotExist(f"coup {coup.pk} is gone")
    coup.state, coup.no_bet, coup.betting_closes_at = orm_values(Coup, _BETTING_LOCKED, row)


_BETTING_LOCKED = ("state", "no_bet", "betting_closes_at")


@cache
def _coup_betting_read_sql() -> str:
    coups = connection.ops.quote_name(Coup._meta.db_table)  # names of ours, not input
    return f"SELECT {columns_sql(Coup, _BETTING_LOCKED, alias='c')} FROM {coups} c WHERE c.id = %s"  # noqa: S608


def betting_open_check(coup: Coup) -> None:
    """Bets are made, changed or removed only while betting is open (seed 000 §6.1.4)."""
    details = {"round_id": coup.round_id, "state": coup.state}
    if coup.no_bet:
        raise BetConflict(f"coup {coup.round_id} is played without bets", code=ErrorCode.NO_BET_COUP, details=details)
    if coup.state != Coup.State.BETTING:
        raise BetConflict(
            f"no more bets: coup {coup.round_id} is {coup.state}", code=ErrorCode.BETTING_CLOSED, details=details
        )
    if coup.betting_closes_at is not None and timezone.now() >= coup.betting_closes_at:
        raise BetConflict(
            f"no more bets: betting on coup {coup.round_id} closed at {coup.betting_closes_at:%H:%M:%S}",
            code=ErrorCode.BETTING_CLOSED,
            details={**details, "betting_closed_at": coup.betting_closes_at.isoformat()},
        )


def bets_changed_events(
    *,
    coup: Coup,
    user_id: int | None,
    balance: Decimal | None,
    own: Mapping[str, Decimal] | None,
    currency: str,
    table_totals: Mapping[str, Decimal],
    bettors: Mapping[str, int] | None = None,
) -> None:
    """The player's new balance with their stakes on the coup (``own``) (unless a partner's wallet holds the
    balance: its answer is sent then, or the bets are a seated patron's chips) and the table's totals in the
    currency, on commit (``bettors``: as ``table_totals_changed``)."""
    if balance is not None:
        wallet_event_send(user_id=user_id, balance=balance, round_id=coup.round_id, bets=own)
    if coup.player_id is None:  # a private coup (a table dealt on demand) is its player's alone
        table_totals_changed(coup=coup, currency=currency, table_totals=table_totals, bettors=bettors)


def table_totals_changed(
    *, coup: Coup, currency: str, table_totals: Mapping[str, Decimal], bettors: Mapping[str, int] | None = None
) -> None:
    """The table's ``bet_totals`` in the currency, on commit (throttled): the stakes per bet type and how many
    bettors each has, read in the caller's transaction, under the coup's lock, so the two agree (``bettors``:
    as the caller counted them under it; else read here)."""
    table_totals_send(
        table_code=coup.table.code,
        currency=currency,
        data=coup_totals_public(coup=coup, currency=currency, table_totals=table_totals, bettors=bettors),
    )
