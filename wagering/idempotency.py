"""One way to carry out a money-moving request once per idempotency key, for the cashier and the partners.

The key's record is claimed first, in the request's transaction, by one ``INSERT … ON CONFLICT DO
NOTHING RETURNING id``: a concurrent request with the same key waits for this one's transaction (the
unique index), then finds the key taken and replays what it recorded. A refused request rolls its claim
back with it: the key may be tried again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone

from wagering.models import LedgerTransaction

CLAIM_SQL = "INSERT INTO {table} ({columns}) VALUES ({values}) ON CONFLICT ({unique}) DO NOTHING RETURNING id"


@dataclass(frozen=True)
class Outcome:
    transaction: LedgerTransaction | None
    replayed: bool


def request_once(
    *,
    model: type[Model],
    scope: Mapping[str, object],
    key: str,
    request: dict,
    perform: Callable[[], LedgerTransaction],
    conflict: Callable[[Model], Exception],
    fields: Mapping[str, object] | None = None,
) -> Outcome:
    """``perform`` once per ``scope`` and ``key`` (``model``'s unique columns), in one transaction with its
    record. The same key again replays the recorded transaction if ``request`` is the same, else raises
    ``conflict(record)``. ``fields``: other columns of the record (e.g. the cashier's ``operation``)."""
    with transaction.atomic():
        record_id = _claim(model=model, scope=scope, key=key, request=request, fields=fields or {})
        if record_id is None:
            record = model.objects.select_related("transaction").get(**scope, key=key)
            if record.request != request:
                raise conflict(record)
            return Outcome(transaction=record.transaction, replayed=True)
        ledger_transaction = perform()
        model.objects.filter(pk=record_id).update(transaction=ledger_transaction)
    return Outcome(transaction=ledger_transaction, replayed=False)


def _claim(
    *, model: type[Model], scope: Mapping[str, object], key: str, request: dict, fields: Mapping[str, object]
) -> int | None:
    """The new record's id, or ``None`` when the key is taken in its scope."""
    quote = connection.ops.quote_name
    scope_columns = {model._meta.get_field(name).column: value for name, value in scope.items()}
    values = {
        **scope_columns,
        **fields,
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
    with connection.cursor() as cursor:
        cursor.execute(sql, list(values.values()))
        row = cursor.fetchone()
    return None if row is None else row[0]
