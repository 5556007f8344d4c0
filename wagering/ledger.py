"""The double-entry ledger: one ``LedgerTransaction`` per movement in one currency, legs summing to zero
and all in its currency (a trigger refuses anything else on PostgreSQL as each statement ends: a
transaction's legs go in one statement), written in bulk, balances stored from the newest leg."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import Model, OuterRef, Subquery
from django.utils import timezone

from kernel.raw_rows import binary_placeholder, prepared_cursor, row_insert
from tables.models import Coup
from wagering.locks import StakeAccount, system_accounts_locked
from wagering.models import (
    Account,
    LedgerEntry,
    LedgerTransaction,
    ledger_shard,
    money,
)

User = AbstractBaseUser
SETTLEMENT = "settlement"  # the actor label of the postings no person makes: settlement and refunds


def ledger_post(
    *,
    kind: str,
    currency: str,
    wallet_legs: Mapping[Account | StakeAccount, Decimal],
    system_legs: Mapping[str, Decimal],
    coup: Coup | None = None,
    actor: User | None = None,
    reason: str = "",
    table_id: int | None = None,
) -> LedgerTransaction:
    """Write one balanced transaction in one currency and the new balances. Wallets (every account of
    ``wallet_legs``, in that currency) must already be locked; the system accounts are the currency's, and
    those kept per table the coup's (or ``table_id``'s, for a movement of no coup), in the coup's shard."""
    legs = [(wallet, money(amount)) for wallet, amount in wallet_legs.items() if amount]
    system = {kind_: money(amount) for kind_, amount in system_legs.items() if amount}
    if sum(amount for _, amount in legs) + sum(system.values()) != 0:
        raise ValueError(f"unbalanced {kind} transaction: {legs} {system}")
    if any(wallet.currency != currency for wallet, _ in legs):
        raise ValueError(f"a {currency} {kind} transaction with a leg in another currency: {legs}")
    ledger_transaction = row_insert(  # a raw statement: every bet placed alone and every settlement posts one
        LedgerTransaction(
            kind=kind,
            currency=currency,
            coup=coup,
            actor=actor if actor is not None and actor.is_authenticated else None,
            reason=reason,
        )
    )
    if system:
        table_id = coup.table_id if coup is not None else table_id
        accounts = system_accounts_locked(set(system), currency=currency, table_id=table_id, shard=ledger_shard(coup))
        legs += [(accounts[kind_], amount) for kind_, amount in system.items()]
    entries = []
    for account, amount in legs:
        before = account.balance
        account.balance = money(before + amount)
        entries.append((ledger_transaction.pk, account.pk, amount, before, account.balance))
    rows_insert(LedgerEntry, ("transaction", "account", "amount", "balance_before", "balance_after"), entries)
    _balances_store(ledger_transaction)
    return ledger_transaction


def rows_insert(model: type[Model], fields: tuple[str, ...], rows: list[tuple]) -> None:
    """Insert rows of plain values (foreign keys as ids) with no model instance per row: settlement
    writes one per player and one per bet. PostgreSQL takes them by COPY (no statement to parse and
    plan for thousands of rows), SQLite by executemany. A ``created_at`` column gets the time now."""
    table, columns, fields, rows = _insert_parts(model, fields, rows, None)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Django's errors (IntegrityError...), as for its own queries: COPY goes to psycopg directly.
            with connection.wrap_database_errors, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            placeholders = ", ".join(["%s"] * len(fields))
            cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({placeholders})", rows)  # noqa: S608


def rows_insert_returning_ids(
    model: type[Model], fields: tuple[str, ...], rows: list[tuple], *, now: datetime | None = None
) -> list[int]:
    """``rows_insert``, answering the new rows' ids in the rows' order (``now``: their ``created_at``, if
    not the time now). PostgreSQL takes one array a column (one parameter each, whatever the number of
    rows, sent in binary and the statement prepared: a batch's arrays were a fifth of its CPU under the coup's
    lock as SQL text), SQLite one multi-row INSERT."""
    table, columns, fields, rows = _insert_parts(model, fields, rows, now)
    with prepared_cursor() as cursor:
        if connection.vendor == "postgresql":
            types = [model._meta.get_field(name).db_type(connection) for name in fields]
            mark = binary_placeholder()
            arrays = ", ".join(f"{mark}::{db_type}[]" for db_type in types)
            cursor.execute(
                f"INSERT INTO {table} ({columns}) SELECT * FROM unnest({arrays}) RETURNING id",  # noqa: S608
                [list(column) for column in zip(*rows, strict=True)],
            )
        else:
            values = ", ".join([f"({', '.join(['%s'] * len(fields))})"] * len(rows))
            cursor.execute(
                f"INSERT INTO {table} ({columns}) VALUES {values} RETURNING id",  # noqa: S608
                [value for row in rows for value in row],
            )
        return sorted(row[0] for row in cursor.fetchall())  # one statement's ids rise in the rows' order


def _insert_parts(
    model: type[Model], fields: tuple[str, ...], rows: list[tuple], now: datetime | None
) -> tuple[str, str, tuple, list]:
    """The quoted table and columns, with ``created_at`` (``now``, else the time now) added to the rows if
    the model has it."""
    meta = model._meta
    if any(field.name == "created_at" for field in meta.concrete_fields):
        fields += ("created_at",)
        created_at = connection.ops.adapt_datetimefield_value(now or timezone.now())
        rows = [(*row, created_at) for row in rows]
    table = connection.ops.quote_name(meta.db_table)
    columns = ", ".join(connection.ops.quote_name(meta.get_field(name).column) for name in fields)
    return table, columns, fields, rows


def balances_store(accounts: list[Account]) -> None:
    """Store each account's ``balance`` as it is on the instance (the ``balance_after`` of its newest leg,
    already written): one statement for any number of accounts, on PostgreSQL of one text whatever their number
    (two arrays, sent in binary, the statement prepared: psycopg splits a statement of hundreds of placeholders
    at each run)."""
    table = connection.ops.quote_name(Account._meta.db_table)
    if connection.vendor == "postgresql":
        mark = binary_placeholder()
        values = f"unnest({mark}::bigint[], {mark}::numeric[]) AS v(column1, column2)"
        parameters = [[account.pk for account in accounts], [account.balance for account in accounts]]
    else:  # SQLite names a VALUES list's columns column1, column2...
        values = f"(VALUES {', '.join(['(%s, CAST(%s AS NUMERIC))'] * len(accounts))}) AS v"
        parameters = [value for account in accounts for value in (account.pk, account.balance)]
    sql = f"UPDATE {table} SET balance = v.column2 FROM {values} WHERE {table}.id = v.column1"  # noqa: S608
    with prepared_cursor() as cursor:
        cursor.execute(sql, parameters)


def _balances_store(ledger_transaction: LedgerTransaction) -> None:
    """Each account of the transaction takes the balance after its leg: one statement for any number of legs.
    On PostgreSQL a join (one pass over the legs; a settlement has one per player), elsewhere a subquery
    per account."""
    if connection.vendor == "postgresql":
        table = connection.ops.quote_name(Account._meta.db_table)
        entries = connection.ops.quote_name(LedgerEntry._meta.db_table)
        sql = (
            f"UPDATE {table} SET balance = entry.balance_after FROM {entries} entry "  # noqa: S608
            f"WHERE entry.transaction_id = %s AND entry.account_id = {table}.id"
        )
        with prepared_cursor() as cursor:
            cursor.execute(sql, [ledger_transaction.pk])
        return
    balance_after = LedgerEntry.objects.filter(transaction=ledger_transaction, account=OuterRef("pk"))
    Account.objects.filter(entries__transaction=ledger_transaction).update(
        balance=Subquery(balance_after.values("balance_after"))
    )
