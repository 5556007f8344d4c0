"""Placing bets: a batch (bet type → stake) on a coup taking bets, all accepted or none, within the
table's and the player's limits; written by the ORM or, on PostgreSQL, in one statement."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from baccarat.coup import BANKER, PLAYER
from baccarat.rules import MAIN_BETS, SIDE_BETS
from casino.live import table_event_send
from casino.money import MAX_AMOUNT
from tables.audit import audit_record
from tables.models import AuditLog, Coup
from tables.selectors import coup_rules
from wagering.amounts import amount_checked, amounts_as_strings, bet_label
from wagering.errors import BetRejected
from wagering.ledger import ledger_post
from wagering.limits import bet_limits_check, differential_check
from wagering.locks import wallet_locked
from wagering.models import (
    ZERO,
    Account,
    Bet,
    BetBatch,
    CoupStakeTotal,
    LedgerEntry,
    LedgerTransaction,
    money,
)
from wagering.selectors import (
    coup_bet_totals_with_own,
    coup_limits,
    largest_return,
    open_bets_largest_return,
    personal_limit_marker,
    wallet_balance,
)
from wagering.wallets import wallet_event_send

User = AbstractBaseUser
REBET_MULTIPLIERS = (1, 2)


def bet_batch_place(*, user: User, coup: Coup, bets: Mapping[str, Decimal | int | str]) -> PlacedBatch:
    """Confirm a batch of bets (bet type -> stake) on the coup: all accepted, or none (``BetRejected``)."""
    if not bets:
        raise BetRejected("empty_batch", "there are no bets to confirm")
    stakes = {}
    for bet_type, stake in bets.items():
        if bet_type not in MAIN_BETS + SIDE_BETS:
            raise BetRejected("unknown_bet_type", f"there is no bet {bet_type!r}", {"bet_type": str(bet_type)})
        stakes[bet_type] = amount_checked(stake, error=BetRejected, what=f"the {bet_label(bet_type)} stake")
    return _batch_place(user=user, coup=coup, stakes=stakes, action="bet_batch_placed")


def bet_rebet(*, user: User, coup: Coup, multiplier: int = 1) -> PlacedBatch:
    """Rebet (×1) or Rebet X2: the player's bets of their last coup at this table, again, all or nothing."""
    if type(multiplier) is not int or multiplier not in REBET_MULTIPLIERS:
        raise BetRejected(
            "invalid_multiplier", f"rebet is ×1 or ×2, not ×{multiplier}", {"multiplier": str(multiplier)}
        )
    previous = Bet.objects.filter(user=user, coup__table_id=coup.table_id).exclude(coup_id=coup.pk)
    previous = previous.exclude(state=Bet.State.CANCELLED)
    last_coup_id = previous.order_by("-coup_id").values_list("coup_id", flat=True).first()
    if last_coup_id is None:
        raise BetRejected("no_previous_bets", "there are no earlier bets at this table to repeat")
    rows = previous.filter(coup_id=last_coup_id).values("bet_type").annotate(total=Sum("stake")).order_by()
    stakes = {row["bet_type"]: money(row["total"]) * multiplier for row in rows}
    return _batch_place(user=user, coup=coup, stakes=stakes, action=f"bet_rebet_x{multiplier}")


@dataclass(frozen=True)
class PlacedBatch:
    """A confirmed batch as the placement left it, so that callers answer without reading it back."""

    batch: BetBatch
    bets: list[Bet]
    balance: Decimal  # the wallet's, just after
    own_totals: dict[str, Decimal]  # the player's stakes on the coup by bet type, this batch included


@transaction.atomic
def _batch_place(*, user: User, coup: Coup, stakes: dict[str, Decimal], action: str) -> PlacedBatch:
    # Read before the coup's lock, which every placement at the table waits for: a marker is the pit's.
    marker = personal_limit_marker(table_id=coup.table_id, user=user, at=timezone.now())
    coup_betting_locked(coup)
    betting_open_check(coup)
    limits = coup_limits(coup=coup)
    for bet_type in stakes:
        if bet_type not in limits:
            raise BetRejected(
                "bet_type_not_offered",
                f"{bet_label(bet_type)} is not offered on coup {coup.round_id}",
                {"bet_type": bet_type, "offered": ", ".join(limits)},
            )
    open_stakes = coup_bet_totals_with_own(coup=coup, user=user)
    table_before, own_before = open_stakes.table, open_stakes.own
    table_after = totals_added(table_before, stakes)
    own_after = totals_added(own_before, stakes)
    if coup_rules(coup=coup).table.forbid_player_and_banker and own_after.get(PLAYER) and own_after.get(BANKER):
        raise BetRejected(
            "player_and_banker",
            f"a player may not bet both Player and Banker in one coup: this would make {own_after[PLAYER]} "
            f"on Player and {own_after[BANKER]} on Banker",
            {"player": str(own_after[PLAYER]), "banker": str(own_after[BANKER])},
        )
    for bet_type in stakes:
        bet_limits_check(
            bet_type=bet_type,
            limit=limits[bet_type],
            marker=marker,
            own=(own_before.get(bet_type, ZERO), own_after[bet_type]),
            table=(table_before.get(bet_type, ZERO), table_after[bet_type]),
        )
    differential_check(coup=coup, before=table_before, after=table_after)
    total = money(sum(stakes.values()))
    bound = _BalanceBound(
        on_coup=largest_return(rules=coup.rules, stakes=own_after),
        elsewhere=open_bets_largest_return(stakes_by_coup=open_stakes.elsewhere),
    )
    placed = placement_writer()(user=user, coup=coup, stakes=stakes, total=total, action=action, bound=bound)
    if placed is None:
        _placement_refusal_raise(user=user, total=total, bound=bound)
    batch, bets, balance = placed
    bets_changed_events(coup=coup, user_id=user.pk, balance=balance, table_totals=table_after)
    return PlacedBatch(batch=batch, bets=bets, balance=balance, own_totals=own_after)


_PlacementWritten = tuple[BetBatch, list[Bet], Decimal]


@dataclass(frozen=True)
class _BalanceBound:
    """The most the player's open bets could bring back: on the coup (this batch included), and elsewhere.

    A wallet holds at most ``MAX_AMOUNT`` (its column's ``numeric(14, 2)``): a bet is accepted only if the
    balance after it, plus all this, fits. Then no settlement can take a wallet past what it holds.
    """

    on_coup: Decimal
    elsewhere: Decimal

    @property
    def largest_return(self) -> Decimal:
        return self.on_coup + self.elsewhere

    def fits(self, *, balance: Decimal, total: Decimal) -> bool:
        return balance - total + self.largest_return <= MAX_AMOUNT


def _placement_refusal_raise(*, user: User, total: Decimal, bound: _BalanceBound) -> None:
    """Why the placement wrote nothing (the wallet is short, or could not hold what the bets may return)."""
    balance = wallet_balance(user=user)
    if total > balance:
        raise BetRejected(
            "insufficient_funds",
            f"the bets total {total} but the balance is {balance}: short by {total - balance}",
            {"balance": str(balance), "required": str(total), "short_by": str(total - balance)},
        )
    over_by = balance - total + bound.largest_return - MAX_AMOUNT
    raise BetRejected(
        "balance_limit",
        f"these bets could bring the balance of {balance - total} up by {bound.largest_return} (your bets on this "
        f"coup {bound.on_coup}, your open bets elsewhere {bound.elsewhere}), past {MAX_AMOUNT}, the most a wallet "
        f"holds, by {over_by}: bet less or withdraw first",
        {
            "balance": str(balance),
            "required": str(total),
            "largest_return": str(bound.on_coup),
            "open_largest_return": str(bound.elsewhere),
            "max_balance": str(MAX_AMOUNT),
            "over_by": str(over_by),
        },
    )


def _placement_write(
    *, user: User, coup: Coup, stakes: dict[str, Decimal], total: Decimal, action: str, bound: _BalanceBound
) -> _PlacementWritten | None:
    """The placement's rows, model by model: the wallet locked and debited, the ledger, the batch, its
    bets, the audit row. ``None`` (nothing written) when the wallet is short or could not hold the bound."""
    wallet = wallet_locked(user)
    if wallet is None or total > wallet.balance or not bound.fits(balance=wallet.balance, total=total):
        return None
    placement = ledger_post(
        kind=LedgerTransaction.Kind.BET_PLACEMENT,
        wallet_legs={wallet: -total},
        system_legs={Account.Kind.BETS_IN_PLAY: total},
        coup=coup,
        actor=user,
    )
    batch = BetBatch.objects.create(coup=coup, user=user, placement=placement)
    bets = Bet.objects.bulk_create(
        Bet(batch=batch, coup=coup, user=user, bet_type=bet_type, stake=stake) for bet_type, stake in stakes.items()
    )
    stake_totals_move(coup=coup, changes=stakes)
    audit_record(
        action=action, actor=user, table=coup.table, obj=batch, after=_placement_audit(coup, stakes, wallet.balance)
    )
    return batch, bets, wallet.balance


def _placement_audit(coup: Coup, stakes: Mapping[str, Decimal], balance: Decimal | None) -> dict:
    after = {"round_id": coup.round_id, "bets": amounts_as_strings(stakes)}
    return after if balance is None else {**after, "balance": str(balance)}


# As SQLite and PostgreSQL both say it, rounded to the cent (SQLite adds in floats). Stakes taken off
# update the row their placement made (an upsert would check the negative change against the
# constraint as a row of its own).
STAKE_TOTAL_ADD_SQL = """
INSERT INTO {stake_total} (coup_id, bet_type, total) VALUES (%s, %s, %s)
ON CONFLICT (coup_id, bet_type) DO UPDATE SET total = ROUND({stake_total}.total + excluded.total, 2)
"""
STAKE_TOTAL_TAKE_SQL = "UPDATE {stake_total} SET total = ROUND(total - %s, 2) WHERE coup_id = %s AND bet_type = %s"


def stake_totals_move(*, coup: Coup, changes: Mapping[str, Decimal]) -> None:
    """The coup's running totals of standing stakes, moved by ``changes`` (negative: cancelled). The
    caller holds the coup's lock: the totals change only with the bets that make them."""
    added = [(coup.pk, bet_type, change) for bet_type, change in changes.items() if change > 0]
    taken = [(-change, coup.pk, bet_type) for bet_type, change in changes.items() if change < 0]
    with connection.cursor() as cursor:
        for sql, rows in ((STAKE_TOTAL_ADD_SQL, added), (STAKE_TOTAL_TAKE_SQL, taken)):
            if rows:
                cursor.executemany(sql_with_tables(sql), rows)


# The same rows as _placement_write, in one round trip (PostgreSQL): the coup's lock, which every
# placement at the table queues for, is held for three statements instead of twelve. The wallet is
# debited only if it holds the total and can hold what the open bets may return (``_BalanceBound``,
# checked against the balance under the wallet's row lock); nothing else is written if not. Then the
# table's bets-in-play account (created by the first bet at the table); the deferred trigger checks the
# legs at commit.
PLACEMENT_SQL = """
WITH wallet AS (
    UPDATE {account} SET balance = balance - %(total)s
    WHERE kind = %(wallet_kind)s AND user_id = %(user)s AND balance >= %(total)s
        AND balance - %(total)s + %(largest_return)s <= %(max_balance)s
    RETURNING id, balance
), in_play AS (
    INSERT INTO {account} (kind, partner_code, table_id, balance, created_at)
    SELECT %(in_play_kind)s, '', %(table)s, %(total)s, %(now)s FROM wallet
    ON CONFLICT (table_id) WHERE kind = {in_play_kind}
    DO UPDATE SET balance = {account}.balance + EXCLUDED.balance
    RETURNING id, balance
), placement AS (
    INSERT INTO {ledger_transaction} (kind, coup_id, actor_id, reason, created_at)
    SELECT %(placement_kind)s, %(coup)s, %(user)s, '', %(now)s FROM in_play
    RETURNING id
), legs AS (
    INSERT INTO {ledger_entry} (transaction_id, account_id, amount, balance_before, balance_after)
    SELECT placement.id, wallet.id, -%(total)s, wallet.balance + %(total)s, wallet.balance FROM placement, wallet
    UNION ALL
    SELECT placement.id, in_play.id, %(total)s, in_play.balance - %(total)s, in_play.balance FROM placement, in_play
), batch AS (
    INSERT INTO {bet_batch} (coup_id, user_id, placement_id, created_at)
    SELECT %(coup)s, %(user)s, placement.id, %(now)s FROM placement
    RETURNING id
), bets AS (
    INSERT INTO {bet} (batch_id, coup_id, user_id, bet_type, stake, state, created_at)
    SELECT batch.id, %(coup)s, %(user)s, stake.bet_type, stake.amount, %(accepted)s, %(now)s
    FROM batch, unnest(%(bet_types)s::varchar[], %(stakes)s::numeric[]) AS stake(bet_type, amount)
    RETURNING id, bet_type
), stake_totals AS (
    INSERT INTO {stake_total} (coup_id, bet_type, total)
    SELECT %(coup)s, stake.bet_type, stake.amount
    FROM batch, unnest(%(bet_types)s::varchar[], %(stakes)s::numeric[]) AS stake(bet_type, amount)
    ON CONFLICT (coup_id, bet_type) DO UPDATE SET total = {stake_total}.total + EXCLUDED.total
), audit AS (
    INSERT INTO {audit_log}
        (actor_id, actor_label, action, table_id, object_type, object_id, after, reason, created_at)
    SELECT %(user)s, %(username)s, %(action)s, %(table)s, %(object_type)s, batch.id::text,
        %(audit)s::jsonb || jsonb_build_object('balance', wallet.balance::text), '', %(now)s
    FROM batch, wallet
)
SELECT batch.id, placement.id, wallet.balance, (SELECT json_object_agg(bet_type, id) FROM bets)
FROM batch, placement, wallet
"""


def sql_with_tables(sql: str) -> str:
    """The statement with its tables' names, from the models (quoted), and the bets-in-play kind that the
    partial unique index names (an index predicate is matched as written, so it cannot be a parameter)."""
    quote = connection.ops.quote_name
    return sql.format(
        account=quote(Account._meta.db_table),
        ledger_transaction=quote(LedgerTransaction._meta.db_table),
        ledger_entry=quote(LedgerEntry._meta.db_table),
        bet_batch=quote(BetBatch._meta.db_table),
        bet=quote(Bet._meta.db_table),
        stake_total=quote(CoupStakeTotal._meta.db_table),
        audit_log=quote(AuditLog._meta.db_table),
        in_play_kind=f"'{Account.Kind.BETS_IN_PLAY.value}'",
    )


def placement_writer():
    """The one-statement writer on PostgreSQL, the model-by-model one elsewhere: the two write the same
    rows (a PostgreSQL test compares them)."""
    return _placement_write_in_one_statement if connection.vendor == "postgresql" else _placement_write


def _placement_write_in_one_statement(
    *, user: User, coup: Coup, stakes: dict[str, Decimal], total: Decimal, action: str, bound: _BalanceBound
) -> _PlacementWritten | None:
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            sql_with_tables(PLACEMENT_SQL),
            {
                "total": total,
                "largest_return": bound.largest_return,
                "max_balance": MAX_AMOUNT,
                "user": user.pk,
                "username": user.get_username(),
                "table": coup.table_id,
                "coup": coup.pk,
                "now": now,
                "bet_types": list(stakes),
                "stakes": list(stakes.values()),
                "action": action,
                "audit": json.dumps(_placement_audit(coup, stakes, None)),
                "wallet_kind": Account.Kind.PLAYER.value,
                "in_play_kind": Account.Kind.BETS_IN_PLAY.value,
                "placement_kind": LedgerTransaction.Kind.BET_PLACEMENT.value,
                "accepted": Bet.State.ACCEPTED.value,
                "object_type": BetBatch.__name__,
            },
        )
        row = cursor.fetchone()
    if row is None:
        return None
    batch_id, placement_id, balance, bet_ids = row
    placement = LedgerTransaction(
        pk=placement_id, kind=LedgerTransaction.Kind.BET_PLACEMENT, coup=coup, actor=user, created_at=now
    )
    batch = BetBatch(pk=batch_id, coup=coup, user=user, placement=placement, created_at=now)
    bets = [
        Bet(pk=bet_ids[bet_type], batch=batch, coup=coup, user=user, bet_type=bet_type, stake=stake, created_at=now)
        for bet_type, stake in stakes.items()
    ]
    for instance in (placement, batch, *bets):
        instance._state.adding, instance._state.db = False, connection.alias  # as if read from the database
    return batch, bets, money(balance)


def totals_added(totals: Mapping[str, Decimal], stakes: Mapping[str, Decimal]) -> dict[str, Decimal]:
    combined = dict(totals)
    for bet_type, stake in stakes.items():
        combined[bet_type] = combined.get(bet_type, ZERO) + stake
    return combined


def coup_betting_locked(coup: Coup) -> None:
    """Lock the coup's row for a change of its bets, and bring ``coup`` up to date with what can have changed
    since the caller read it: its state, no-bet order and betting deadline (its rules are fixed when it
    opens). Three columns, not the whole row with its table: every bet at the table waits for this lock."""
    locked = Coup.objects.select_for_update(of=("self",)).filter(pk=coup.pk)
    coup.state, coup.no_bet, coup.betting_closes_at = locked.values_list("state", "no_bet", "betting_closes_at").get()


def betting_open_check(coup: Coup) -> None:
    """Bets are made, changed or removed only while betting is open (seed 000 §6.1.4)."""
    details = {"round_id": coup.round_id, "state": coup.state}
    if coup.no_bet:
        raise BetRejected("no_bet_coup", f"coup {coup.round_id} is played without bets", details)
    if coup.state != Coup.State.BETTING:
        raise BetRejected("betting_closed", f"no more bets: coup {coup.round_id} is {coup.state}", details)
    if coup.betting_closes_at is not None and timezone.now() >= coup.betting_closes_at:
        raise BetRejected(
            "betting_closed",
            f"no more bets: betting on coup {coup.round_id} closed at {coup.betting_closes_at:%H:%M:%S}",
            {**details, "betting_closed_at": coup.betting_closes_at.isoformat()},
        )


def bets_changed_events(*, coup: Coup, user_id: int, balance: Decimal, table_totals: Mapping[str, Decimal]) -> None:
    wallet_event_send(user_id=user_id, balance=balance)
    table_event_send(
        table_code=coup.table.code,
        event_type="bet_totals",
        data={"round_id": coup.round_id, "totals": amounts_as_strings({k: v for k, v in table_totals.items() if v})},
    )
