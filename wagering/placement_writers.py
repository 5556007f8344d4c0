"""Writing a placement's rows: by the ORM (the wallet's, or a partner's float for a seamless wallet), or on
PostgreSQL in one statement (a test proves the two write the same rows); the coup's running stake totals."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.utils import timezone

from kernel.money import MAX_AMOUNT
from kernel.raw_rows import prepared_cursor
from tables.audit import audit_record
from tables.models import AuditLog, Coup
from wagering.amounts import amounts_as_strings
from wagering.ledger import ledger_post
from wagering.locks import float_locked, wallet_locked
from wagering.models import (
    Account,
    Bet,
    BetBatch,
    CoupStakeTotal,
    LedgerEntry,
    LedgerTransaction,
    ledger_shard,
    money,
)

User = AbstractBaseUser
# A placement written: its batch and bets as model instances, made when a caller asks (most answer from the stakes
# alone), and the wallet's balance after it.
PlacementWritten = tuple[Callable[[], tuple[BetBatch, list[Bet]]], Decimal]


@dataclass(frozen=True)
class BalanceBound:
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


@dataclass(frozen=True)
class PartnerFunds:
    """Stakes a partner's seamless wallet paid: on our books, from the partner's float, in its currency."""

    code: str
    currency: str


def placement_write(
    *,
    user: User,
    coup: Coup,
    stakes: dict[str, Decimal],
    total: Decimal,
    currency: str,
    action: str,
    bound: BalanceBound,
    joined: frozenset[str],
) -> PlacementWritten | None:
    """The placement's rows, model by model: the wallet locked and debited, the ledger, the batch, its
    bets, the audit row. ``None`` (nothing written) when the wallet is short or could not hold the bound.
    ``joined``: the bet types the player had no stake on yet (one bettor more on each)."""
    wallet = wallet_locked(user)
    if (
        wallet is None
        or wallet.currency != currency
        or total > wallet.balance
        or not bound.fits(balance=wallet.balance, total=total)
    ):
        return None
    placement = ledger_post(
        kind=LedgerTransaction.Kind.BET_PLACEMENT,
        currency=currency,
        wallet_legs={wallet: -total},
        system_legs={Account.Kind.BETS_IN_PLAY: total},
        coup=coup,
        actor=user,
    )
    batch, bets = _batch_write(
        user=user, coup=coup, stakes=stakes, placement=placement, stake_account=wallet, joined=joined
    )
    audit_record(
        action=action, actor=user, table=coup.table, obj=batch, after=placement_audit(coup, stakes, wallet.balance)
    )
    return (lambda: (batch, bets)), wallet.balance


def placement_write_from_float(
    *,
    user: User,
    coup: Coup,
    stakes: dict[str, Decimal],
    total: Decimal,
    action: str,
    partner: PartnerFunds,
    joined: frozenset[str],
) -> tuple[BetBatch, list[Bet]]:
    """The placement's rows for stakes a partner's seamless wallet paid: from the partner's float."""
    partner_float = float_locked(partner.code, currency=partner.currency)
    placement = ledger_post(
        kind=LedgerTransaction.Kind.BET_PLACEMENT,
        currency=partner.currency,
        wallet_legs={partner_float: -total},
        system_legs={Account.Kind.BETS_IN_PLAY: total},
        coup=coup,
        actor=user,
        reason=f"partner {partner.code} seamless wallet",
    )
    batch, bets = _batch_write(
        user=user, coup=coup, stakes=stakes, placement=placement, stake_account=partner_float, joined=joined
    )
    after = {**placement_audit(coup, stakes, None), "partner": partner.code}
    audit_record(action=action, actor=user, table=coup.table, obj=batch, after=after)
    return batch, bets


def _batch_write(
    *,
    user: User,
    coup: Coup,
    stakes: dict[str, Decimal],
    placement: LedgerTransaction,
    stake_account: Account,
    joined: frozenset[str],
) -> tuple[BetBatch, list[Bet]]:
    batch = BetBatch.objects.create(coup=coup, user=user, placement=placement)
    bets = Bet.objects.bulk_create(
        Bet(batch=batch, coup=coup, user=user, bet_type=bet_type, stake=stake, stake_account=stake_account)
        for bet_type, stake in stakes.items()
    )
    stake_totals_move(coup=coup, currency=stake_account.currency, changes=stakes, bettors=dict.fromkeys(joined, 1))
    return batch, bets


def placement_audit(coup: Coup, stakes: Mapping[str, Decimal], balance: Decimal | None) -> dict:
    after = {"round_id": coup.round_id, "bets": amounts_as_strings(stakes)}
    return after if balance is None else {**after, "balance": str(balance)}


# As SQLite and PostgreSQL both say it, rounded to the cent (SQLite adds in floats). Stakes taken off
# update the row their placement made (an upsert would check the negative change against the
# constraint as a row of its own).
STAKE_TOTAL_ADD_SQL = """
INSERT INTO {stake_total} (coup_id, bet_type, currency, total, bettors) VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (coup_id, bet_type, currency) DO UPDATE
SET total = ROUND({stake_total}.total + excluded.total, 2), bettors = {stake_total}.bettors + excluded.bettors
"""
STAKE_TOTAL_TAKE_SQL = """
UPDATE {stake_total} SET total = ROUND(total - %s, 2), bettors = bettors - %s
WHERE coup_id = %s AND bet_type = %s AND currency = %s
"""


def bettors_joined(*, stakes: Mapping[str, Decimal], before: Mapping[str, Decimal]) -> frozenset[str]:
    """The bet types these stakes start a bettor on (one bettor more on each in ``stake_totals_move``): those
    the bettor (a player, a seat session) had no stake on ``before``."""
    return frozenset(bet_type for bet_type in stakes if not before.get(bet_type))


def stake_totals_move(*, coup: Coup, currency: str, changes: Mapping[str, Decimal], bettors: Mapping[str, int]) -> None:
    """The coup's running totals of standing stakes in the currency, moved by ``changes`` (negative:
    cancelled), and their bettors by ``bettors`` (by bet type: +1 for each player or seat session whose stake
    on it goes from none to some, -1 for each whose stake goes back to none). The caller holds the coup's
    lock: the totals change only with the bets that make them."""
    added = [
        (coup.pk, bet_type, currency, change, bettors.get(bet_type, 0))
        for bet_type, change in changes.items()
        if change > 0
    ]
    taken = [
        (-change, -bettors.get(bet_type, 0), coup.pk, bet_type, currency)
        for bet_type, change in changes.items()
        if change < 0
    ]
    with connection.cursor() as cursor:
        for sql, rows in ((STAKE_TOTAL_ADD_SQL, added), (STAKE_TOTAL_TAKE_SQL, taken)):
            if rows:
                cursor.executemany(sql_with_tables(sql), rows)


# The same rows as _placement_write, in one round trip (PostgreSQL): the coup's lock, which every
# placement at the table queues for, is held for three statements instead of twelve. The wallet is
# debited only if it holds the total and can hold what the open bets may return (``BalanceBound``,
# checked against the balance under the wallet's row lock); nothing else is written if not. Then the
# table's bets-in-play account in the coup's shard (created by the first bet there); the ledger's trigger checks the
# legs (both in one INSERT) as the statement ends.
PLACEMENT_SQL = """
WITH wallet AS (
    UPDATE {account} SET balance = balance - %(total)s
    WHERE kind = %(wallet_kind)s AND user_id = %(user)s AND currency = %(currency)s AND balance >= %(total)s
        AND balance - %(total)s + %(largest_return)s <= %(max_balance)s
    RETURNING id, balance
), in_play AS (
    INSERT INTO {account} (kind, partner_code, table_id, shard, currency, balance, created_at)
    SELECT %(in_play_kind)s, '', %(table)s, %(shard)s, %(currency)s, %(total)s, %(now)s FROM wallet
    ON CONFLICT (table_id, currency, shard) WHERE kind = {in_play_kind}
    DO UPDATE SET balance = {account}.balance + EXCLUDED.balance
    RETURNING id, balance
), placement AS (
    INSERT INTO {ledger_transaction} (kind, currency, coup_id, actor_id, reason, created_at)
    SELECT %(placement_kind)s, %(currency)s, %(coup)s, %(user)s, '', %(now)s FROM in_play
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
    INSERT INTO {bet} (batch_id, coup_id, user_id, bet_type, stake, stake_account_id, state, created_at)
    SELECT batch.id, %(coup)s, %(user)s, stake.bet_type, stake.amount, wallet.id, %(accepted)s, %(now)s
    FROM batch, wallet, unnest(%(bet_types)s::varchar[], %(stakes)s::numeric[]) AS stake(bet_type, amount)
    RETURNING id, bet_type
), stake_totals AS (
    INSERT INTO {stake_total} (coup_id, bet_type, currency, total, bettors)
    SELECT %(coup)s, stake.bet_type, %(currency)s, stake.amount, (stake.bet_type = ANY(%(joined)s::varchar[]))::int
    FROM batch, unnest(%(bet_types)s::varchar[], %(stakes)s::numeric[]) AS stake(bet_type, amount)
    ON CONFLICT (coup_id, bet_type, currency) DO UPDATE
    SET total = {stake_total}.total + EXCLUDED.total, bettors = {stake_total}.bettors + EXCLUDED.bettors
), audit AS (
    INSERT INTO {audit_log}
        (actor_id, actor_label, action, table_id, object_type, object_id, after, reason, created_at)
    SELECT %(user)s, %(username)s, %(action)s, %(table)s, %(object_type)s, batch.id::text,
        %(audit)s::jsonb || jsonb_build_object('balance', wallet.balance::text), '', %(now)s
    FROM batch, wallet
)
SELECT batch.id, placement.id, wallet.balance, (SELECT json_object_agg(bet_type, id) FROM bets), wallet.id
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
    return placement_write_in_one_statement if connection.vendor == "postgresql" else placement_write


def placement_write_in_one_statement(
    *,
    user: User,
    coup: Coup,
    stakes: dict[str, Decimal],
    total: Decimal,
    currency: str,
    action: str,
    bound: BalanceBound,
    joined: frozenset[str],
) -> PlacementWritten | None:
    now = timezone.now()
    with prepared_cursor() as cursor:
        cursor.execute(
            sql_with_tables(PLACEMENT_SQL),
            {
                "total": total,
                "currency": currency,
                "largest_return": bound.largest_return,
                "max_balance": MAX_AMOUNT,
                "user": user.pk,
                "username": user.get_username(),
                "table": coup.table_id,
                "shard": ledger_shard(coup),
                "coup": coup.pk,
                "now": now,
                "bet_types": list(stakes),
                "stakes": list(stakes.values()),
                "joined": sorted(joined),
                "action": action,
                "audit": json.dumps(placement_audit(coup, stakes, None)),
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
    batch_id, placement_id, balance, bet_ids, wallet_id = row
    ids = PlacementIds(placement=placement_id, batch=batch_id, bets=[bet_ids[bet_type] for bet_type in stakes])

    def built() -> tuple[BetBatch, list[Bet]]:
        batch, bets = placed_instances(
            coup=coup, user=user, currency=currency, stakes=stakes, stake_account_id=wallet_id
        )
        placed_ids_given(batch, bets, ids=ids, now=now)
        return batch, bets

    return built, money(balance)


@dataclass(frozen=True)
class PlacementIds:
    """The ids a placement's rows got: its ledger transaction, its batch, its bets (in its stakes' order)."""

    placement: int
    batch: int
    bets: list[int]


def placed_instances(
    *,
    coup: Coup,
    user: User,
    currency: str,
    stakes: Mapping[str, Decimal],
    stake_account_id: int,
) -> tuple[BetBatch, list[Bet]]:
    """A placement written in SQL, as model instances as if read back (so callers answer without reading),
    once ``placed_ids_given`` gives them the ids and the time it was written with: built ahead, as a group
    commit does before the coup's lock."""
    placement = LedgerTransaction(
        kind=LedgerTransaction.Kind.BET_PLACEMENT,
        currency=currency,
        coup=coup,
        actor=user,
    )
    batch = BetBatch(coup=coup, user=user, placement=placement)
    bets = [
        Bet(batch=batch, coup=coup, user=user, bet_type=bet_type, stake=stake, stake_account_id=stake_account_id)
        for bet_type, stake in stakes.items()
    ]
    for instance in (placement, batch, *bets):
        instance._state.adding, instance._state.db = False, connection.alias
    return batch, bets


def placed_ids_given(batch: BetBatch, bets: list[Bet], *, ids: PlacementIds, now: datetime) -> None:
    """The ids and the time a placement built ahead (``placed_instances``) was written with. Each foreign key is
    set through its instance, not its id: a changed id makes Django forget the related instance, read back from
    the database at the next look (a partner's bet's answer looks at ``batch.placement``)."""
    placement = batch.placement
    placement.pk, placement.created_at = ids.placement, now
    batch.pk, batch.placement, batch.created_at = ids.batch, placement, now
    for bet, bet_id in zip(bets, ids.bets, strict=True):
        bet.pk, bet.batch, bet.created_at = bet_id, batch, now
