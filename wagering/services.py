"""Every movement of money: one transaction each, validated, audited, pushed live on commit.

Locks are always taken in one order, so concurrent services never deadlock: the coup row
first, then player wallets by primary key, then the system accounts by primary key (last,
just before commit, as every transaction touches them). On PostgreSQL a deferred trigger
refuses a ledger transaction whose legs do not sum to zero; a check constraint refuses a
negative wallet. Amounts are ``Decimal`` to the cent, never floats.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import reduce
from operator import or_
from typing import NamedTuple

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, F, Model, OuterRef, Q, QuerySet, Subquery, Sum
from django.utils import timezone

from baccarat.coup import BANKER, PLAYER, TIE, CoupResult
from baccarat.rules import MAIN_BETS, SIDE_BETS
from casino.live import table_event_send, user_event_send, user_events_send
from partners.webhooks import SETTLEMENT as SETTLEMENT_EVENT
from partners.webhooks import webhook_events_enqueue
from tables.audit import audit_record
from tables.models import AMOUNT_TEXT, Coup, PersonalLimitMarker, Shoe
from tables.selectors import rules_from_snapshot
from wagering.errors import BetRejected, IdempotencyConflict, SettlementRefused, WageringError, WalletRejected
from wagering.models import (
    CENT,
    ZERO,
    Account,
    Bet,
    BetAdjustment,
    BetBatch,
    BetSettlement,
    IdempotencyKey,
    LedgerEntry,
    LedgerTransaction,
    ShoeReport,
    TableDayReport,
    money,
)
from wagering.selectors import (
    BetLimitSnapshot,
    bet_paid,
    coup_bet_totals,
    coup_bet_totals_with_own,
    coup_limits,
    coup_max_differential,
    largest_return,
    open_bets_largest_return,
    personal_limit_marker,
    wallet_balance,
    wallet_open_largest_return,
)

User = AbstractBaseUser
MAX_AMOUNT = Decimal("999999999999.99")  # what MONEY (14 digits, 2 places) can hold
MAX_IDEMPOTENCY_KEY = 100
SETTLEMENT = "settlement"
CASHIER = "cashier"
REBET_MULTIPLIERS = (1, 2)
logger = logging.getLogger(__name__)


# --- Amounts -------------------------------------------------------------------------------


def amount_checked(value: object, *, error: type[WageringError], what: str) -> Decimal:
    """A positive amount with at most 2 decimals: ``Decimal``, ``int`` or a string; floats are refused."""
    details = {"amount": str(value)}
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str):
        raise error("invalid_amount", f"{what} must be a decimal amount, not {type(value).__name__}", details)
    if isinstance(value, str) and not AMOUNT_TEXT.fullmatch(value.strip()):
        raise error("invalid_amount", f"{what} must be written in digits, e.g. 25.50, not {value!r}", details)
    try:
        amount = Decimal(value.strip()) if isinstance(value, str) else Decimal(value)
    except InvalidOperation:
        raise error("invalid_amount", f"{what} must be a decimal amount, not {value!r}", details) from None
    if not amount.is_finite() or amount <= 0:
        raise error("invalid_amount", f"{what} must be a positive amount, not {value}", details)
    if amount > MAX_AMOUNT or amount != amount.quantize(CENT):
        raise error("invalid_amount", f"{what} must have at most 2 decimals and 12 digits, not {value}", details)
    return amount.quantize(CENT)


def _label(bet_type: str) -> str:
    return bet_type.replace("_", " ").capitalize()


def _strings(amounts: Mapping[str, Decimal]) -> dict[str, str]:
    return {key: str(amount) for key, amount in amounts.items()}


# --- The ledger ----------------------------------------------------------------------------


def _wallet_locked(user: User) -> Account | None:
    return Account.objects.select_for_update().filter(kind=Account.Kind.PLAYER, user=user).first()


def wallet_locked_for_transfer(user: User, *, kind: str, amount: Decimal) -> Account:
    """The player's wallet, locked (opened if it is the first transfer), with the funds a withdrawal needs."""
    wallet = _wallet_locked(user)
    if wallet is None:
        Account.objects.get_or_create(kind=Account.Kind.PLAYER, user=user)
        wallet = _wallet_locked(user)
    if kind == LedgerTransaction.Kind.WITHDRAWAL and amount > wallet.balance:
        raise WalletRejected(
            "insufficient_funds",
            f"cannot withdraw {amount}: the balance is {wallet.balance}, short by {amount - wallet.balance}",
            {"balance": str(wallet.balance), "amount": str(amount), "short_by": str(amount - wallet.balance)},
        )
    return wallet


def wallets_locked(user_ids: set[int]) -> dict[int, Account]:
    wallets = Account.objects.select_for_update().filter(kind=Account.Kind.PLAYER, user_id__in=user_ids)
    return {wallet.user_id: wallet for wallet in wallets.order_by("pk")}


def _system_accounts_locked(kinds: set[str], *, table_id: int | None = None) -> dict[str, Account]:
    """The house, bets-in-play and operator float accounts, created the first time, locked in pk order.

    Bets in play are held per table (``table_id``, the coup's): placements at different tables
    never queue for one account's row lock.
    """
    accounts = Account.objects.select_for_update().filter(_system_account_q(kinds, table_id)).order_by("pk")
    locked = {account.kind: account for account in accounts}
    if len(locked) < len(kinds):
        for kind in kinds - set(locked):
            Account.objects.get_or_create(kind=kind, partner_code="", table_id=_account_table_id(kind, table_id))
        return _system_accounts_locked(kinds, table_id=table_id)
    return locked


def _account_table_id(kind: str, table_id: int | None) -> int | None:
    return table_id if kind == Account.Kind.BETS_IN_PLAY else None


def _system_account_q(kinds: set[str], table_id: int | None) -> Q:
    return reduce(or_, (Q(kind=kind, partner_code="", table_id=_account_table_id(kind, table_id)) for kind in kinds))


def ledger_post(
    *,
    kind: str,
    wallet_legs: Mapping[Account, Decimal],
    system_legs: Mapping[str, Decimal],
    coup: Coup | None = None,
    actor: User | None = None,
    reason: str = "",
) -> LedgerTransaction:
    """Write one balanced transaction and the new balances. Wallets must already be locked."""
    legs = [(wallet, money(amount)) for wallet, amount in wallet_legs.items() if amount]
    system = {kind_: money(amount) for kind_, amount in system_legs.items() if amount}
    if sum(amount for _, amount in legs) + sum(system.values()) != 0:
        raise ValueError(f"unbalanced {kind} transaction: {legs} {system}")
    ledger_transaction = LedgerTransaction.objects.create(
        kind=kind, coup=coup, actor=actor if actor is not None and actor.is_authenticated else None, reason=reason
    )
    if system:
        accounts = _system_accounts_locked(set(system), table_id=coup.table_id if coup is not None else None)
        legs += [(accounts[kind_], amount) for kind_, amount in system.items()]
    entries = []
    for account, amount in legs:
        before = account.balance
        account.balance = money(before + amount)
        entries.append((ledger_transaction.pk, account.pk, amount, before, account.balance))
    _rows_insert(LedgerEntry, ("transaction", "account", "amount", "balance_before", "balance_after"), entries)
    _balances_store(ledger_transaction)
    return ledger_transaction


def _rows_insert(model: type[Model], fields: tuple[str, ...], rows: list[tuple]) -> None:
    """Insert rows of plain values (foreign keys as ids) with no model instance per row: settlement
    writes one per player and one per bet. PostgreSQL takes them by COPY (no statement to parse and
    plan for thousands of rows), SQLite by executemany. A ``created_at`` column gets the time now."""
    meta = model._meta
    if any(field.name == "created_at" for field in meta.concrete_fields):
        fields += ("created_at",)
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        rows = [(*row, now) for row in rows]
    table = connection.ops.quote_name(meta.db_table)
    columns = ", ".join(connection.ops.quote_name(meta.get_field(name).column) for name in fields)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Django's errors (IntegrityError...), as for its own queries: COPY goes to psycopg directly.
            with connection.wrap_database_errors, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            placeholders = ", ".join(["%s"] * len(fields))
            cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({placeholders})", rows)  # noqa: S608


def _balances_store(ledger_transaction: LedgerTransaction) -> None:
    """Each account of the transaction takes the balance after its leg: one statement for any number of legs."""
    balance_after = LedgerEntry.objects.filter(transaction=ledger_transaction, account=OuterRef("pk"))
    Account.objects.filter(entries__transaction=ledger_transaction).update(
        balance=Subquery(balance_after.values("balance_after"))
    )


def deposit_bound_check(*, wallet: Account, amount: Decimal) -> None:
    """A deposit leaves room in the (locked) wallet for all its open bets may return (``_BalanceBound``)."""
    open_return = wallet_open_largest_return(user_id=wallet.user_id)
    if wallet.balance + amount + open_return > MAX_AMOUNT:
        raise WalletRejected(
            "amount_too_large",
            f"a deposit of {amount} would take the balance of {wallet.balance}, with up to {open_return} "
            f"its open bets may return, past {MAX_AMOUNT}, the most a wallet holds",
            {
                "balance": str(wallet.balance),
                "amount": str(amount),
                "open_largest_return": str(open_return),
                "max_balance": str(MAX_AMOUNT),
            },
        )


def wallet_event_send(*, user_id: int, balance: Decimal) -> None:
    """The wallet's new balance to its player's browsers, on commit."""
    user_event_send(user_id=user_id, event_type="wallet", data={"balance": str(balance)})


# --- Deposits and withdrawals ----------------------------------------------------------------


def wallet_deposit(
    *, user: User, amount: Decimal | int | str, idempotency_key: str, actor: User | None = None, reason: str = ""
) -> LedgerTransaction:
    """Credit the player's wallet from the operator's float. The same key twice moves money once."""
    return _wallet_move(
        kind=LedgerTransaction.Kind.DEPOSIT,
        user=user,
        amount=amount,
        idempotency_key=idempotency_key,
        actor=actor,
        reason=reason,
    )


def wallet_withdraw(
    *, user: User, amount: Decimal | int | str, idempotency_key: str, actor: User | None = None, reason: str = ""
) -> LedgerTransaction:
    """Debit the player's wallet back to the operator's float, never below zero. Idempotent by key."""
    return _wallet_move(
        kind=LedgerTransaction.Kind.WITHDRAWAL,
        user=user,
        amount=amount,
        idempotency_key=idempotency_key,
        actor=actor,
        reason=reason,
    )


def _wallet_move(
    *, kind: str, user: User, amount: object, idempotency_key: str, actor: User | None, reason: str
) -> LedgerTransaction:
    amount = amount_checked(amount, error=WalletRejected, what=f"the {kind} amount")
    if not isinstance(idempotency_key, str) or not 0 < len(idempotency_key) <= MAX_IDEMPOTENCY_KEY:
        raise WalletRejected(
            "invalid_idempotency_key", f"an idempotency key of 1 to {MAX_IDEMPOTENCY_KEY} characters is required"
        )
    request = {"operation": kind, "user": str(user.pk), "amount": str(amount)}
    with transaction.atomic():
        try:
            with transaction.atomic():  # first, so a concurrent request with the key waits for this one
                record = IdempotencyKey.objects.create(key=idempotency_key, operation=kind, request=request)
        except IntegrityError:
            return _idempotent_replay(key=idempotency_key, request=request)
        wallet = wallet_locked_for_transfer(user, kind=kind, amount=amount)
        before = wallet.balance
        if kind == LedgerTransaction.Kind.DEPOSIT:
            deposit_bound_check(wallet=wallet, amount=amount)
        signed = amount if kind == LedgerTransaction.Kind.DEPOSIT else -amount
        ledger_transaction = ledger_post(
            kind=kind,
            wallet_legs={wallet: signed},
            system_legs={Account.Kind.PARTNER_FLOAT: -signed},
            actor=actor,
            reason=reason,
        )
        IdempotencyKey.objects.filter(pk=record.pk).update(transaction=ledger_transaction)
        audit_record(
            action=f"wallet_{kind}",
            actor=actor,
            actor_label=CASHIER,
            obj=wallet,
            before={"balance": str(before)},
            after={"balance": str(wallet.balance), "amount": str(amount), "idempotency_key": idempotency_key},
            reason=reason,
        )
        wallet_event_send(user_id=wallet.user_id, balance=wallet.balance)
    return ledger_transaction


def _idempotent_replay(*, key: str, request: dict) -> LedgerTransaction:
    record = IdempotencyKey.objects.select_related("transaction").get(key=key)
    if record.request != request:
        raise IdempotencyConflict(
            "idempotency_conflict",
            f"idempotency key {key!r} was used for a {record.request['operation']} of {record.request['amount']} "
            f"to user {record.request['user']}, not a {request['operation']} of {request['amount']} "
            f"to user {request['user']}",
            {"key": key, **{f"first_{name}": value for name, value in record.request.items()}},
        )
    return record.transaction


# --- Placing and cancelling bets ---------------------------------------------------------------


def bet_batch_place(*, user: User, coup: Coup, bets: Mapping[str, Decimal | int | str]) -> PlacedBatch:
    """Confirm a batch of bets (bet type -> stake) on the coup: all accepted, or none (``BetRejected``)."""
    if not bets:
        raise BetRejected("empty_batch", "there are no bets to confirm")
    stakes = {}
    for bet_type, stake in bets.items():
        if bet_type not in MAIN_BETS + SIDE_BETS:
            raise BetRejected("unknown_bet_type", f"there is no bet {bet_type!r}", {"bet_type": str(bet_type)})
        stakes[bet_type] = amount_checked(stake, error=BetRejected, what=f"the {_label(bet_type)} stake")
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
    _coup_betting_locked(coup)
    _betting_open_check(coup)
    limits = coup_limits(coup=coup)
    for bet_type in stakes:
        if bet_type not in limits:
            raise BetRejected(
                "bet_type_not_offered",
                f"{_label(bet_type)} is not offered on coup {coup.round_id}",
                {"bet_type": bet_type, "offered": ", ".join(limits)},
            )
    open_stakes = coup_bet_totals_with_own(coup=coup, user=user)
    table_before, own_before = open_stakes.table, open_stakes.own
    table_after = _added(table_before, stakes)
    own_after = _added(own_before, stakes)
    if coup.rules.get("forbid_player_and_banker", True) and own_after.get(PLAYER) and own_after.get(BANKER):
        raise BetRejected(
            "player_and_banker",
            f"a player may not bet both Player and Banker in one coup: this would make {own_after[PLAYER]} "
            f"on Player and {own_after[BANKER]} on Banker",
            {"player": str(own_after[PLAYER]), "banker": str(own_after[BANKER])},
        )
    for bet_type in stakes:
        _bet_limits_check(
            bet_type=bet_type,
            limit=limits[bet_type],
            marker=marker,
            own=(own_before.get(bet_type, ZERO), own_after[bet_type]),
            table=(table_before.get(bet_type, ZERO), table_after[bet_type]),
        )
    _differential_check(coup=coup, before=table_before, after=table_after)
    total = money(sum(stakes.values()))
    bound = _BalanceBound(
        on_coup=largest_return(rules=coup.rules, stakes=own_after),
        elsewhere=open_bets_largest_return(stakes_by_coup=open_stakes.elsewhere),
    )
    write = _placement_write_in_one_statement if connection.vendor == "postgresql" else _placement_write
    placed = write(user=user, coup=coup, stakes=stakes, total=total, action=action, bound=bound)
    if placed is None:
        _placement_refusal_raise(user=user, total=total, bound=bound)
    batch, bets, balance = placed
    _bets_changed_events(coup=coup, user_id=user.pk, balance=balance, table_totals=table_after)
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
    wallet = _wallet_locked(user)
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
    _stake_totals_move(coup=coup, changes=stakes)
    audit_record(
        action=action, actor=user, table=coup.table, obj=batch, after=_placement_audit(coup, stakes, wallet.balance)
    )
    return batch, bets, wallet.balance


def _placement_audit(coup: Coup, stakes: Mapping[str, Decimal], balance: Decimal | None) -> dict:
    after = {"round_id": coup.round_id, "bets": _strings(stakes)}
    return after if balance is None else {**after, "balance": str(balance)}


# As SQLite and PostgreSQL both say it, rounded to the cent (SQLite adds in floats). Stakes taken off
# update the row their placement made (an upsert would check the negative change against the
# constraint as a row of its own).
STAKE_TOTAL_ADD_SQL = """
INSERT INTO wagering_coupstaketotal (coup_id, bet_type, total) VALUES (%s, %s, %s)
ON CONFLICT (coup_id, bet_type) DO UPDATE SET total = ROUND(wagering_coupstaketotal.total + excluded.total, 2)
"""
STAKE_TOTAL_TAKE_SQL = (
    "UPDATE wagering_coupstaketotal SET total = ROUND(total - %s, 2) WHERE coup_id = %s AND bet_type = %s"
)


def _stake_totals_move(*, coup: Coup, changes: Mapping[str, Decimal]) -> None:
    """The coup's running totals of standing stakes, moved by ``changes`` (negative: cancelled). The
    caller holds the coup's lock: the totals change only with the bets that make them."""
    added = [(coup.pk, bet_type, change) for bet_type, change in changes.items() if change > 0]
    taken = [(-change, coup.pk, bet_type) for bet_type, change in changes.items() if change < 0]
    with connection.cursor() as cursor:
        for sql, rows in ((STAKE_TOTAL_ADD_SQL, added), (STAKE_TOTAL_TAKE_SQL, taken)):
            if rows:
                cursor.executemany(sql, rows)


# The same rows as _placement_write, in one round trip (PostgreSQL): the coup's lock, which every
# placement at the table queues for, is held for three statements instead of twelve. The wallet is
# debited only if it holds the total and can hold what the open bets may return (``_BalanceBound``,
# checked against the balance under the wallet's row lock); nothing else is written if not. Then the
# table's bets-in-play account (created by the first bet at the table); the deferred trigger checks the
# legs at commit.
PLACEMENT_SQL = """
WITH wallet AS (
    UPDATE wagering_account SET balance = balance - %(total)s
    WHERE kind = 'player' AND user_id = %(user)s AND balance >= %(total)s
        AND balance - %(total)s + %(largest_return)s <= %(max_balance)s
    RETURNING id, balance
), in_play AS (
    INSERT INTO wagering_account (kind, partner_code, table_id, balance, created_at)
    SELECT 'bets_in_play', '', %(table)s, %(total)s, %(now)s FROM wallet
    ON CONFLICT (table_id) WHERE kind = 'bets_in_play'
    DO UPDATE SET balance = wagering_account.balance + EXCLUDED.balance
    RETURNING id, balance
), placement AS (
    INSERT INTO wagering_ledgertransaction (kind, coup_id, actor_id, reason, created_at)
    SELECT 'bet_placement', %(coup)s, %(user)s, '', %(now)s FROM in_play
    RETURNING id
), legs AS (
    INSERT INTO wagering_ledgerentry (transaction_id, account_id, amount, balance_before, balance_after)
    SELECT placement.id, wallet.id, -%(total)s, wallet.balance + %(total)s, wallet.balance FROM placement, wallet
    UNION ALL
    SELECT placement.id, in_play.id, %(total)s, in_play.balance - %(total)s, in_play.balance FROM placement, in_play
), batch AS (
    INSERT INTO wagering_betbatch (coup_id, user_id, placement_id, created_at)
    SELECT %(coup)s, %(user)s, placement.id, %(now)s FROM placement
    RETURNING id
), bets AS (
    INSERT INTO wagering_bet (batch_id, coup_id, user_id, bet_type, stake, state, created_at)
    SELECT batch.id, %(coup)s, %(user)s, stake.bet_type, stake.amount, 'accepted', %(now)s
    FROM batch, unnest(%(bet_types)s::varchar[], %(stakes)s::numeric[]) AS stake(bet_type, amount)
    RETURNING id, bet_type
), stake_totals AS (
    INSERT INTO wagering_coupstaketotal (coup_id, bet_type, total)
    SELECT %(coup)s, stake.bet_type, stake.amount
    FROM batch, unnest(%(bet_types)s::varchar[], %(stakes)s::numeric[]) AS stake(bet_type, amount)
    ON CONFLICT (coup_id, bet_type) DO UPDATE SET total = wagering_coupstaketotal.total + EXCLUDED.total
), audit AS (
    INSERT INTO tables_auditlog
        (actor_id, actor_label, action, table_id, object_type, object_id, after, reason, created_at)
    SELECT %(user)s, %(username)s, %(action)s, %(table)s, 'BetBatch', batch.id::text,
        %(audit)s::jsonb || jsonb_build_object('balance', wallet.balance::text), '', %(now)s
    FROM batch, wallet
)
SELECT batch.id, placement.id, wallet.balance, (SELECT json_object_agg(bet_type, id) FROM bets)
FROM batch, placement, wallet
"""


def _placement_write_in_one_statement(
    *, user: User, coup: Coup, stakes: dict[str, Decimal], total: Decimal, action: str, bound: _BalanceBound
) -> _PlacementWritten | None:
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            PLACEMENT_SQL,
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


def _added(totals: Mapping[str, Decimal], stakes: Mapping[str, Decimal]) -> dict[str, Decimal]:
    combined = dict(totals)
    for bet_type, stake in stakes.items():
        combined[bet_type] = combined.get(bet_type, ZERO) + stake
    return combined


def _coup_locked(coup_id: int) -> Coup:
    return Coup.objects.select_for_update(of=("self",)).select_related("table").get(pk=coup_id)


def _coup_betting_locked(coup: Coup) -> None:
    """Lock the coup's row for a change of its bets, and bring ``coup`` up to date with what can have changed
    since the caller read it: its state, no-bet order and betting deadline (its rules are fixed when it
    opens). Three columns, not the whole row with its table: every bet at the table waits for this lock."""
    locked = Coup.objects.select_for_update(of=("self",)).filter(pk=coup.pk)
    coup.state, coup.no_bet, coup.betting_closes_at = locked.values_list("state", "no_bet", "betting_closes_at").get()


def _betting_open_check(coup: Coup) -> None:
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


def _bet_limits_check(
    *,
    bet_type: str,
    limit: BetLimitSnapshot,
    marker: PersonalLimitMarker | None,
    own: tuple[Decimal, Decimal],
    table: tuple[Decimal, Decimal],
) -> None:
    """The player's total on the bet within their limits (a personal marker replaces the table's),
    and the table's total within the table-wide maximum (tie and side bets, seed 000 §6.1.3)."""
    source, minimum, maximum = (
        ("personal limit", marker.minimum, marker.maximum) if marker else ("table", limit.minimum, limit.maximum)
    )
    own_before, own_after = own
    label = _label(bet_type)
    details = {"bet_type": bet_type, "limit": source, "minimum": str(minimum), "maximum": str(maximum)}
    if own_after < minimum:
        raise BetRejected(
            "below_minimum",
            f"{label}: {own_after} is under the {source} minimum of {minimum} by {minimum - own_after}",
            {**details, "total": str(own_after), "short_by": str(minimum - own_after)},
        )
    if own_after > maximum:
        room = max(maximum - own_before, ZERO)
        raise BetRejected(
            "above_maximum",
            f"{label}: {own_after} is over the {source} maximum of {maximum} by {own_after - maximum}; "
            f"at most {room} more can be accepted",
            {**details, "total": str(own_after), "over_by": str(own_after - maximum), "max_additional": str(room)},
        )
    table_before, table_after = table
    if limit.table_maximum is not None and table_after > limit.table_maximum:
        room = max(limit.table_maximum - table_before, ZERO)
        raise BetRejected(
            "table_maximum",
            f"{label}: the table's total would be {table_after}, over the table-wide maximum of "
            f"{limit.table_maximum} by {table_after - limit.table_maximum}; at most {room} more can be accepted",
            {
                "bet_type": bet_type,
                "table_maximum": str(limit.table_maximum),
                "table_total": str(table_after),
                "over_by": str(table_after - limit.table_maximum),
                "max_additional": str(room),
            },
        )


def _differential_check(*, coup: Coup, before: Mapping[str, Decimal], after: Mapping[str, Decimal]) -> None:
    """|Banker - Player| over the whole table within the maximum differential (seed 000 §6.1; tie
    and side bets apart, §6.1.3). A change that does not widen the gap is always allowed.
    The refusal says how much more each side could take as the table stands (§6.1.2)."""
    limit = coup_max_differential(coup=coup)
    player_before, banker_before = before.get(PLAYER, ZERO), before.get(BANKER, ZERO)
    player, banker = after.get(PLAYER, ZERO), after.get(BANKER, ZERO)
    gap = abs(banker - player)
    if gap <= limit or gap <= abs(banker_before - player_before):
        return
    player_room = max(banker_before + limit - player_before, ZERO)
    banker_room = max(player_before + limit - banker_before, ZERO)
    raise BetRejected(
        "max_differential",
        f"Banker {banker} against Player {player} would be over the table's maximum differential of {limit} "
        f"by {gap - limit}: at most {player_room} more on Player or {banker_room} more on Banker",
        {
            "max_differential": str(limit),
            "player_total": str(player),
            "banker_total": str(banker),
            "over_by": str(gap - limit),
            "player_max_additional": str(player_room),
            "banker_max_additional": str(banker_room),
        },
    )


@transaction.atomic
def bet_batch_undo(*, user: User, coup: Coup) -> BetBatch:
    """Undo: cancel the player's last confirmed batch on the coup while betting is open, and refund it."""
    _coup_betting_locked(coup)
    _betting_open_check(coup)
    batch = BetBatch.objects.filter(coup=coup, user=user, cancelled_at__isnull=True).order_by("-pk").first()
    if batch is None:
        raise BetRejected("no_bets", f"there is no bet to undo on coup {coup.round_id}", {"round_id": coup.round_id})
    _batches_cancel(coup=coup, user=user, batches=[batch], action="bet_batch_undone")
    return batch


@transaction.atomic
def bet_remove_all(*, user: User, coup: Coup) -> list[BetBatch]:
    """Remove: cancel all the player's bets on the coup while betting is open, and refund them."""
    _coup_betting_locked(coup)
    _betting_open_check(coup)
    batches = list(BetBatch.objects.filter(coup=coup, user=user, cancelled_at__isnull=True).order_by("pk"))
    if not batches:
        raise BetRejected(
            "no_bets", f"there are no bets to remove on coup {coup.round_id}", {"round_id": coup.round_id}
        )
    _batches_cancel(coup=coup, user=user, batches=batches, action="bets_removed")
    return batches


def _batches_cancel(*, coup: Coup, user: User, batches: list[BetBatch], action: str) -> None:
    bets = list(Bet.objects.filter(batch__in=batches, state=Bet.State.ACCEPTED))
    cancelled: dict[str, Decimal] = defaultdict(lambda: ZERO)
    for bet in bets:
        cancelled[bet.bet_type] -= bet.stake
    table_before = coup_bet_totals(coup=coup)
    table_after = _added(table_before, cancelled)
    _differential_check(coup=coup, before=table_before, after=table_after)
    wallet = _wallet_locked(user)
    total = -money(sum(cancelled.values()))
    ledger_transaction = ledger_post(
        kind=LedgerTransaction.Kind.BET_CANCEL,
        wallet_legs={wallet: total},
        system_legs={Account.Kind.BETS_IN_PLAY: -total},
        coup=coup,
        actor=user,
    )
    Bet.objects.filter(pk__in=[bet.pk for bet in bets]).update(state=Bet.State.CANCELLED)
    _stake_totals_move(coup=coup, changes=cancelled)
    now = timezone.now()
    BetBatch.objects.filter(pk__in=[batch.pk for batch in batches]).update(
        cancellation=ledger_transaction, cancelled_at=now
    )
    for batch in batches:
        batch.cancellation, batch.cancelled_at = ledger_transaction, now
    audit_record(
        action=action,
        actor=user,
        table=coup.table,
        obj=batches[-1],
        after={"round_id": coup.round_id, "refunded": str(total), "balance": str(wallet.balance)},
    )
    _bets_changed_events(coup=coup, user_id=user.pk, balance=wallet.balance, table_totals=table_after)


def _bets_changed_events(*, coup: Coup, user_id: int, balance: Decimal, table_totals: Mapping[str, Decimal]) -> None:
    wallet_event_send(user_id=user_id, balance=balance)
    table_event_send(
        table_code=coup.table.code,
        event_type="bet_totals",
        data={"round_id": coup.round_id, "totals": _strings({k: v for k, v in table_totals.items() if v})},
    )


# --- Settlement and refunds --------------------------------------------------------------------


def coup_settle(*, coup_id: int) -> LedgerTransaction | None:
    """Pay every bet of a resolved coup by its paytable and mark the coup settled. Run twice, pays once.

    Winnings are rounded down to the cent. One ledger transaction per coup, one leg per player.
    The statements do not grow with the bets or the players (bets read as rows, settlements and
    legs written in bulk), and the players' live events go in one on-commit callback.
    """
    with transaction.atomic():
        coup = _coup_locked(coup_id)
        if coup.state in (Coup.State.SETTLED, Coup.State.VOID):
            return None
        result = coup.result() if coup.state == Coup.State.RESOLVED else None
        if result is None:
            raise SettlementRefused(
                "not_resolved",
                f"coup {coup.round_id} is {coup.state}: only a resolved coup (with its cards) is settled",
                {"round_id": coup.round_id, "state": coup.state},
            )
        bets = _open_bets(coup)
        ledger_transaction, returned = _bets_pay(coup=coup, result=result, bets=bets) if bets else (None, ZERO)
        now = timezone.now()
        Coup.objects.filter(pk=coup.pk).update(state=Coup.State.SETTLED, settled_at=now)
        staked = money(sum(bet.stake for bet in bets))
        audit_record(
            action="coup_settled",
            actor_label=SETTLEMENT,
            table=coup.table,
            obj=coup,
            after={"bets": len(bets), "staked": str(staked), "returned": str(returned)},
        )
        webhook_events_enqueue(coup=coup, kind=SETTLEMENT_EVENT)
        table_event_send(
            table_code=coup.table.code,
            event_type="settlement",
            data={
                "round_id": coup.round_id,
                "result": result.as_dict(),
                "bets": len(bets),
                "staked": str(staked),
                "returned": str(returned),
            },
        )
    return ledger_transaction


class _OpenBet(NamedTuple):
    pk: int
    user_id: int
    bet_type: str
    stake: Decimal


class _ClosedBet(NamedTuple):
    bet: _OpenBet
    outcome: str
    returned: Decimal


def _open_bets(coup: Coup) -> list[_OpenBet]:
    """The coup's accepted bets as plain rows, not model instances: a coup may have thousands."""
    rows = Bet.objects.filter(coup=coup, state=Bet.State.ACCEPTED).order_by("pk")
    return [_OpenBet(*row) for row in rows.values_list("pk", "user_id", "bet_type", "stake")]


def _by_user(closed: list[_ClosedBet]) -> dict[int, list[_ClosedBet]]:
    by_user: dict[int, list[_ClosedBet]] = defaultdict(list)
    for closed_bet in closed:
        by_user[closed_bet.bet.user_id].append(closed_bet)
    return by_user


def _bets_pay(*, coup: Coup, result: CoupResult, bets: list[_OpenBet]) -> tuple[LedgerTransaction, Decimal]:
    """Pay the bets by the coup's paytables: the settlement transaction, and the total returned."""
    paytables = rules_from_snapshot(coup.rules).paytables()
    closed = []
    for bet in bets:
        closed.append(_ClosedBet(bet, *bet_paid(paytables[bet.bet_type], bet.stake, result)))
    by_user = _by_user(closed)
    returned_by_user = {user_id: money(sum(each.returned for each in mine)) for user_id, mine in by_user.items()}
    wallets = wallets_locked(set(by_user))
    withheld = _payouts_withheld(coup=coup, wallets=wallets, returned_by_user=returned_by_user)
    paid_by_user = {user_id: amount for user_id, amount in returned_by_user.items() if user_id not in withheld}
    staked, paid = sum(bet.stake for bet in bets), sum(paid_by_user.values())
    ledger_transaction = ledger_post(
        kind=LedgerTransaction.Kind.SETTLEMENT,
        wallet_legs={wallets[user_id]: amount for user_id, amount in paid_by_user.items()},
        system_legs={Account.Kind.BETS_IN_PLAY: -staked, Account.Kind.HOUSE: staked - paid},
        coup=coup,
    )
    _bets_close(coup=coup, closed=closed, ledger_transaction=ledger_transaction, state=Bet.State.SETTLED)
    user_events_send(
        event_type="settlement",
        data_by_user={
            user_id: {
                "round_id": coup.round_id,
                "winner": result.winner,
                "balance": str(wallet.balance),
                "staked": str(money(sum(each.bet.stake for each in by_user[user_id]))),
                "returned": str(returned_by_user[user_id]),
                "withheld": str(withheld.get(user_id, ZERO)),
                "bets": [
                    {
                        "bet_type": each.bet.bet_type,
                        "stake": str(each.bet.stake),
                        "outcome": each.outcome,
                        "returned": str(each.returned),
                    }
                    for each in by_user[user_id]
                ],
            }
            for user_id, wallet in wallets.items()
        },
    )
    return ledger_transaction, money(paid)


def _payouts_withheld(
    *, coup: Coup, wallets: Mapping[int, Account], returned_by_user: Mapping[int, Decimal]
) -> dict[int, Decimal]:
    """The players whose wallet cannot hold what the coup returns them (past ``MAX_AMOUNT``), and that amount.

    Placements and deposits leave room for every open bet's largest return (``_BalanceBound``), so this
    stays empty; should a wallet be full all the same, its payout is withheld rather than fail the
    coup's whole settlement (a ``numeric`` overflow, again on every retry, and nobody at the coup paid).
    Each bet still records what it returned; the amount stays with the house, and an audit row and an
    error in the log tell the cashier what the player is owed (``settlement_check`` reports the wallet).
    """
    withheld = {
        user_id: amount
        for user_id, amount in returned_by_user.items()
        if amount and wallets[user_id].balance + amount > MAX_AMOUNT
    }
    for user_id, amount in withheld.items():
        wallet = wallets[user_id]
        logger.error("coup %s: payout of %s to user %s withheld: the wallet is full", coup.round_id, amount, user_id)
        audit_record(
            action="settlement_payout_withheld",
            actor_label=SETTLEMENT,
            table=coup.table,
            obj=wallet,
            after={
                "round_id": coup.round_id,
                "user_id": user_id,
                "withheld": str(amount),
                "balance": str(wallet.balance),
                "max_balance": str(MAX_AMOUNT),
            },
            reason=f"the wallet cannot hold a payout of {amount}: owed to the player, to be paid by the cashier",
        )
    return withheld


def _bets_close(*, coup: Coup, closed: list[_ClosedBet], ledger_transaction: LedgerTransaction, state: str) -> None:
    """Record each bet's settlement (unique per bet: a second attempt fails) and its final state."""
    _rows_insert(
        BetSettlement,
        ("bet", "outcome", "returned", "transaction"),
        [(each.bet.pk, each.outcome, each.returned, ledger_transaction.pk) for each in closed],
    )
    Bet.objects.filter(coup=coup, state=Bet.State.ACCEPTED).update(state=state)


def coup_bets_refund(*, coup: Coup) -> LedgerTransaction | None:
    """Refund every open bet of a coup being voided, inside the caller's transaction. Idempotent.

    A settled coup is final: its bets cannot be refunded.
    """
    with transaction.atomic():
        coup = _coup_locked(coup.pk)
        if coup.state == Coup.State.SETTLED:
            raise SettlementRefused(
                "settled", f"coup {coup.round_id} is settled: its bets cannot be refunded", {"round_id": coup.round_id}
            )
        bets = _open_bets(coup)
        if not bets:
            return None
        closed = [_ClosedBet(bet, BetSettlement.Outcome.REFUND, bet.stake) for bet in bets]
        refunds = {user_id: money(sum(each.returned for each in mine)) for user_id, mine in _by_user(closed).items()}
        wallets = wallets_locked(set(refunds))
        total = money(sum(refunds.values()))
        ledger_transaction = ledger_post(
            kind=LedgerTransaction.Kind.REFUND,
            wallet_legs={wallets[user_id]: amount for user_id, amount in refunds.items()},
            system_legs={Account.Kind.BETS_IN_PLAY: -total},
            coup=coup,
            reason=f"coup {coup.round_id} void",
        )
        _bets_close(coup=coup, closed=closed, ledger_transaction=ledger_transaction, state=Bet.State.REFUNDED)
        audit_record(
            action="coup_bets_refunded",
            actor_label=SETTLEMENT,
            table=coup.table,
            obj=coup,
            after={"bets": len(bets), "refunded": str(total)},
        )
        user_events_send(
            event_type="bets_refunded",
            data_by_user={
                user_id: {"round_id": coup.round_id, "refunded": str(refunds[user_id]), "balance": str(wallet.balance)}
                for user_id, wallet in wallets.items()
            },
        )
    return ledger_transaction


# --- Game-history reports ----------------------------------------------------------------------


def table_day_report_build(*, table_id: int, day: date) -> TableDayReport:
    """(Re)compute a table's drop/win for a day (the UTC day its coups opened): safe to run again."""
    coups = Coup.objects.filter(table_id=table_id, opened_at__date=day)
    report, _ = TableDayReport.objects.update_or_create(table_id=table_id, day=day, defaults=_report_values(coups))
    return report


def shoe_report_build(*, shoe_id: int) -> ShoeReport:
    """(Re)compute a shoe's drop/win: safe to run again."""
    coups = Coup.objects.filter(shoe_id=shoe_id)
    report, _ = ShoeReport.objects.update_or_create(shoe_id=shoe_id, defaults=_report_values(coups))
    return report


def day_reports_build(*, day: date) -> int:
    """The reports of every table that played on the day, and of every shoe used that day."""
    coups = Coup.objects.filter(opened_at__date=day)
    table_ids = set(coups.values_list("table_id", flat=True))
    shoe_ids = set(Shoe.objects.filter(coups__in=coups).values_list("pk", flat=True))
    for table_id in sorted(table_ids):
        table_day_report_build(table_id=table_id, day=day)
    for shoe_id in sorted(shoe_ids):
        shoe_report_build(shoe_id=shoe_id)
    return len(table_ids) + len(shoe_ids)


def _report_values(coups: QuerySet[Coup]) -> dict:
    played = Q(state__in=(Coup.State.RESOLVED, Coup.State.SETTLED))
    counts = coups.aggregate(
        coups=Count("pk", filter=played),
        void_coups=Count("pk", filter=Q(state=Coup.State.VOID)),
        banker_wins=Count("pk", filter=played & Q(winner=BANKER)),
        player_wins=Count("pk", filter=played & Q(winner=PLAYER)),
        ties=Count("pk", filter=played & Q(winner=TIE)),
    )
    paid = (
        BetSettlement.objects.filter(bet__coup__in=coups)
        .exclude(outcome=BetSettlement.Outcome.REFUND)
        .aggregate(
            bets=Count("pk"),
            players=Count("bet__user", distinct=True),
            staked=Sum("bet__stake"),
            returned=Sum("returned"),
        )
    )
    corrected = BetAdjustment.objects.filter(bet__coup__in=coups).aggregate(
        total=Sum(F("returned_after") - F("returned_before"))
    )
    staked, returned = money(paid["staked"]), money(paid["returned"]) + money(corrected["total"])
    house_win = staked - returned
    return {
        **counts,
        "bets": paid["bets"],
        "players": paid["players"],
        "staked": staked,
        "returned": returned,
        "house_win": house_win,
        "hold_percent": (house_win * 100 / staked).quantize(CENT) if staked else None,
    }
