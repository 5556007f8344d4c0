"""Rows the hot paths read with raw SQL, given back as the ORM would give them.

An ORM query costs about ten times as much to build as to run (0.6-0.7 ms of CPU against 0.1 ms for the same
row read raw, on PostgreSQL): the statements every bet request or every socket connect makes are written once
here from the models' own table and column names, and their values pass through the same converters as the
ORM's (SQLite's decimals and datetimes, JSON), so what they give is what a queryset would.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import TypeVar

from django.conf import settings
from django.db import connection, connections, transaction
from django.db.backends.utils import CursorWrapper
from django.db.models import NOT_PROVIDED, Model
from django.db.models.expressions import Col
from django.db.transaction import TransactionManagementError

M = TypeVar("M", bound=Model)


def prepared_cursor() -> CursorWrapper:
    """A cursor for the hot paths' statements: on PostgreSQL bound on the server (the values sent apart from the
    statement), so psycopg prepares each statement on its pooled connection from its ``PREPARE_THRESHOLD`` + 1st
    run and PostgreSQL parses and plans it once, not on every bet; elsewhere, and with ``DATABASE_PREPARED=0`` (a
    pooler that cannot keep a connection's prepared statements), the usual cursor. Django's wrapper as ever: its
    errors, its execute wrappers and its query log."""
    if not settings.DATABASE_PREPARED:
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        return connection._prepare_cursor(_prepared_cursor_class()(connection.connection))


@cache
def _prepared_cursor_class() -> type:
    from django.db.backends.postgresql.base import ServerBindingCursor  # psycopg is installed only for PostgreSQL
    from psycopg.errors import FeatureNotSupported

    class PreparedCursor(ServerBindingCursor):
        """A migration that changes the type of a column a prepared statement returns makes PostgreSQL refuse
        the statement ("cached plan must not change result type") until psycopg forgets it, which only a
        rollback does: in a transaction its rollback follows, outside one (autocommit: a bet request's table
        read) the connection is closed, and Django replaces it when the request ends. One request fails a
        connection, not every one until the process restarts."""

        def execute(self, query, params=None, **kwargs):
            # psycopg counts statements for preparing only while a threshold is set: set for ours alone, Django's
            # queries (their values written in, a bulk insert's megabytes) are not kept in its counts.
            self.connection.prepare_threshold = PREPARE_THRESHOLD
            try:
                return super().execute(query, params, **kwargs)
            except FeatureNotSupported as error:
                if self.connection.autocommit and CHANGED_RESULT_TYPE in str(error):
                    self.connection.close()
                raise
            finally:
                self.connection.prepare_threshold = None

    return PreparedCursor


def binary_placeholder() -> str:
    """``%b`` on a ``prepared_cursor`` bound on the server: the value sent in PostgreSQL's binary format (an array
    of ids or amounts dumps about three times faster than as text); ``%s`` on any other cursor."""
    return "%b" if settings.DATABASE_PREPARED else "%s"  # as prepared_cursor decides (PostgreSQL's setting only)


CHANGED_RESULT_TYPE = "cached plan must not change result type"
PREPARE_THRESHOLD = 2  # runs on a connection before a statement is prepared: the hot ones reach it at once


def for_update(*, of: str = "") -> str:
    """The clause that locks a raw read's rows, as ``select_for_update`` would: refused outside a transaction (the
    lock would end with the statement), and nothing where the database has no row locks (SQLite). ``of``: the
    alias of the only table whose rows a join locks (``select_for_update(of=...)``)."""
    if connection.get_autocommit():
        raise TransactionManagementError("rows locked outside of a transaction")
    if not connection.features.has_select_for_update:
        return ""
    return f" FOR UPDATE OF {of}" if of else " FOR UPDATE"


def sql_literal(value: str) -> str:
    """A constant of the code (a state, a kind) written into a statement rather than sent as a value: a prepared
    statement's generic plan cannot match a value sent apart against a partial index's predicate
    (``state = 'accepted'``), and would read the whole index beside it. Only a word of lowercase letters."""
    if not re.fullmatch(r"[a-z_]+", value):
        raise ValueError(f"not a word to write into a statement: {value!r}")
    return f"'{value}'"


def columns_sql(model: type[Model], names: Sequence[str], *, alias: str) -> str:
    """``alias."column", ...`` for the model's fields ``names`` (names or attnames), quoted."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(model._meta.get_field(name).column)}" for name in names)


@cache
def model_attnames(model: type[Model]) -> tuple[str, ...]:
    """The model's columns' attribute names in its fields' order: the values ``Model.from_db`` takes whole."""
    return tuple(field.attname for field in model._meta.concrete_fields)


def orm_values(model: type[Model], names: Sequence[str], row: Sequence[object]) -> list[object]:
    """The raw row's values of the model's fields ``names``, as the ORM would give them (the backend's
    converters, then the field's own)."""
    values = []
    for value, (column, converters) in zip(row, _converters(model, tuple(names), connection.alias), strict=True):
        for converter in converters:
            value = converter(value, column, connection)
        values.append(value)
    return values


@cache
def _converters(model: type[Model], names: tuple[str, ...], alias: str) -> list[tuple[Col, list[Callable]]]:
    """Each field's column and converters, looked up once a process: a quarter of a bet's protection and live
    coup reads went to looking them up again (the converters take the connection they run on as an argument)."""
    columns = []
    for name in names:
        field = model._meta.get_field(name)
        column = field.get_col(model._meta.db_table)
        columns.append(
            (column, [*connections[alias].ops.get_db_converters(column), *field.get_db_converters(connections[alias])])
        )
    return columns


def row_insert(instance: M) -> M:
    """``instance.save()`` of a new row for the hot paths (no signal sent: none is connected to their models), as
    a raw statement prepared once: each value as its field would save it (``auto_now_add`` set), the id set. A
    model the plain ``save()`` of which this is not (a field with a database default or generated, a parent
    model's fields) is refused, as is a row already saved or one pointing at a row not saved."""
    fields, sql = _insert_parts(type(instance), connection.alias)
    if instance.pk is not None:
        raise ValueError(f"{instance!r} is saved already: row_insert writes new rows")
    instance._prepare_related_fields_for_save(operation_name="row_insert")
    params = [field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields]
    with transaction.mark_for_rollback_on_error(), prepared_cursor() as cursor:
        cursor.execute(sql, params)
        instance.pk = cursor.fetchone()[0]
    instance._state.adding, instance._state.db = False, connection.alias
    return instance


@cache
def _insert_parts(model: type[Model], alias: str) -> tuple[list, str]:
    quote = connections[alias].ops.quote_name  # names of ours, not input
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    if model._meta.parents or any(field.db_default is not NOT_PROVIDED or field.generated for field in fields):
        raise ValueError(f"{model.__name__}: row_insert writes only a model's own columns, none defaulted or generated")
    columns, placeholders = ", ".join(quote(field.column) for field in fields), ", ".join(["%s"] * len(fields))
    return fields, (
        f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({placeholders}) "  # noqa: S608
        f"RETURNING {quote(model._meta.pk.column)}"
    )


def row_update(model: type[Model], pk: object, **values: object) -> None:
    """``model.objects.filter(pk=pk).update(**values)`` for the hot paths (plain values, no expressions), as a
    raw statement prepared once: each value as its field would save it."""
    fields, sql = _update_parts(model, tuple(values), connection.alias)
    params = [field.get_db_prep_save(value, connection) for field, value in zip(fields, values.values(), strict=True)]
    with transaction.mark_for_rollback_on_error(), prepared_cursor() as cursor:
        cursor.execute(sql, [*params, pk])


@cache
def _update_parts(model: type[Model], names: tuple[str, ...], alias: str) -> tuple[list, str]:
    quote = connections[alias].ops.quote_name  # names of ours, not input
    fields = [model._meta.get_field(name) for name in names]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    return fields, f"UPDATE {quote(model._meta.db_table)} SET {assignments} WHERE {quote(model._meta.pk.column)} = %s"  # noqa: S608
