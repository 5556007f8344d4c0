"""A membership test whose statement is the same text whatever the number of values.

``filter(user_id__in=ids)`` writes one placeholder a value: a group commit's reads of hundreds of players
each made psycopg split a statement of hundreds of placeholders (too long for its cache) and Django prepare
every value, about a fifth of the batch's Python. ``AnyOf(F("user_id"), ids)`` (the ORM) and ``any_of``
(raw statements) are ``user_id = ANY(%s)`` on PostgreSQL, one array parameter; elsewhere the usual ``IN``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from django.core.exceptions import EmptyResultSet
from django.db import connection as default_connection
from django.db.models import Lookup

from kernel.raw_rows import binary_placeholder, prepared_cursor


def any_of(
    column: str, values: Iterable, *, connection=default_connection, placeholder: str = "%s"
) -> tuple[str, list]:
    """The condition ``column`` is one of ``values``, and its parameters (``IN ()`` is never written);
    ``placeholder``: the array's (``binary_placeholder()`` on a prepared cursor)."""
    values = list(values)
    if connection.vendor == "postgresql":
        return f"{column} = ANY({placeholder})", [values]
    if not values:
        raise EmptyResultSet
    return f"{column} IN ({', '.join(['%s'] * len(values))})", values


def rows_any_of(select: str, column: str, values: Collection, *, parameters: Sequence = (), then: str = "") -> list:
    """The rows of ``select`` (a statement that ends in a ``WHERE`` condition, ``parameters`` its values) whose
    ``column`` is also one of ``values``, ``then`` written after (an order, a lock): a prepared statement, the
    same text whatever the number of values, the values sent in binary. None asked, none read."""
    if not values:
        return []
    condition, of_values = any_of(column, values, placeholder=binary_placeholder())
    with prepared_cursor() as cursor:
        cursor.execute(f"{select} AND {condition}{then}", [*parameters, *of_values])
        return cursor.fetchall()


class AnyOf(Lookup):
    """The column's value is one of ``values`` (plain values of its type, not expressions)."""

    prepare_rhs = False

    def __init__(self, lhs, values: Iterable) -> None:
        super().__init__(lhs, list(values))

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        sql, params = any_of(lhs, self.rhs, connection=connection)
        return sql, [*lhs_params, *params]
