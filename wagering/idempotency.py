"""One way to carry out a money-moving request once per idempotency key: for the cashier, the partners and
the players' bet requests.

The key's record is claimed first, in the request's transaction, by one ``INSERT … ON CONFLICT DO
NOTHING RETURNING id``: a concurrent request with the same key waits for this one's transaction (the
unique index), then finds the key taken and replays what it recorded. A refused request rolls its claim
back with it; ``refusal_record`` claims the key for the refusal (so that it too is answered again).
A request that locks a coup claims its key under that lock (``lock_first``): a batch of bets holds the coup's
lock while it records its requests' keys (``casino.players.bet_requests``, ``partners.bets``), so a key claimed
before the coup's lock, then waiting for it, deadlocked with a batch recording the same key, sent again through
another web host (``wagering.locks``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Generic, TypeVar

from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone

from kernel.raw_rows import prepared_cursor
from wagering.models import BetRequest, LedgerTransaction

CLAIM_SQL = "INSERT INTO {table} ({columns}) VALUES ({values}) ON CONFLICT ({unique}) DO NOTHING RETURNING id"


R = TypeVar("R")


@dataclass(frozen=True)
class Outcome(Generic[R]):
    result: R  # what ``perform`` returned, or for a replay what the record says it did
    replayed: bool


def _transaction_remember(model: type[Model], record_id: int, ledger_transaction: LedgerTransaction) -> None:
    with prepared_cursor() as cursor:
        cursor.execute(_remember_sql(model), [ledger_transaction.pk, record_id])


@cache
def _remember_sql(model: type[Model]) -> str:
    quote, meta = connection.ops.quote_name, model._meta  # names of ours, not input
    transaction_column, pk_column = quote(meta.get_field("transaction").column), quote(meta.pk.column)
    return f"UPDATE {quote(meta.db_table)} SET {transaction_column} = %s WHERE {pk_column} = %s"  # noqa: S608


def _transaction_replay(record: Model) -> LedgerTransaction | None:
    return record.transaction


def request_once(
    *,
    model: type[Model],
    scope: Mapping[str, object],
    key: str,
    request: dict,
    perform: Callable[[], R],
    conflict: Callable[[Model], Exception],
    fields: Mapping[str, object] | None = None,
    remember: Callable[[type[Model], int, R], None] = _transaction_remember,
    replay: Callable[[Model], R] = _transaction_replay,
    lock_first: Callable[[], object] | None = None,
) -> Outcome[R]:
    """``perform`` once per ``scope`` and ``key`` (``model``'s unique columns), in one transaction with its
    record, which ``remember`` fills in with the result (by default: its ``transaction``). The same key
    again answers ``replay(record)`` if ``request`` is the same, else raises ``conflict(record)``.
    ``fields``: other columns of the record (e.g. the cashier's ``operation``); ``lock_first`` takes the locks
    that come before the record in the lock order (the coup ``perform`` bets on)."""
    with transaction.atomic():
        if lock_first is not None:
            lock_first()
        record_id = _claim(model=model, scope=scope, key=key, request=request, fields=fields or {})
        if record_id is None:
            record = model.objects.get(**scope, key=key)
            if record.request != request:
                raise conflict(record)
            return Outcome(result=replay(record), replayed=True)
        result = perform()
        remember(model, record_id, result)
    return Outcome(result=result, replayed=False)


def refusal_record(
    *,
    model: type[Model],
    scope: Mapping[str, object],
    key: str,
    request: dict,
    fields: Mapping[str, object],
    lock_first: Callable[[], object] | None = None,
) -> Model | None:
    """Record a refused request under its key (``fields`` say why), in a transaction of its own: ``None``,
    or the record already there (a concurrent attempt of the same key was recorded first). ``lock_first`` as
    for ``request_once``."""
    with transaction.atomic():
        if lock_first is not None:
            lock_first()
        if _claim(model=model, scope=scope, key=key, request=request, fields=fields) is not None:
            return None
        return model.objects.get(**scope, key=key)


def _claim(
    *, model: type[Model], scope: Mapping[str, object], key: str, request: dict, fields: Mapping[str, object]
) -> int | None:
    """The new record's id, or ``None`` when the key is taken in its scope."""
    quote = connection.ops.quote_name
    scope_columns = {model._meta.get_field(name).column: value for name, value in scope.items()}
    values = {
        **scope_columns,
        **{name: json.dumps(value) if isinstance(value, dict | list) else value for name, value in fields.items()},
        "key": key,
        "request": json.dumps(request),
        "created_at": connection.ops.adapt_datetimefield_value(timezone.now()),
    }
    sql = CLAIM_SQL.format(
        table=quote(model._meta.db_table),
        columns=", ".join(quote(column) for column in values),
        values=", ".join(["%s"] * len(values)),
        unique=", ".join(quote(column) for column in (*scope_columns, "key")),
    )
    with prepared_cursor() as cursor:
        cursor.execute(sql, list(values.values()))
        row = cursor.fetchone()
    return None if row is None else row[0]


def bet_requests_prune(*, older_than: timedelta) -> int:
    """Forget the players' bet requests made more than ``older_than`` ago (their rounds long settled: a
    request_id sent again by then is refused as its round is over anyway). How many were forgotten."""
    deleted, _ = BetRequest.objects.filter(created_at__lt=timezone.now() - older_than).delete()
    return deleted
