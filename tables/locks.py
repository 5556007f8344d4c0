"""The floor's lock order, written once: **pit → table → shoe → coup**. Money continues it in
``wagering.locks``: wallets in primary-key order, then the system accounts.

Every service that locks floor rows goes through here, in that order; a service may skip a level
(settlement and placement lock only the coup: they change neither its table nor its shoe) but never
goes back up. A seated patron's session (``SeatSession``) comes after the table or the coup: chips entered
for a seat lock the coup with its table (``coup_locked``: the shift cannot close meanwhile), then the session;
a patron leaving locks the table, then the session.
A coup's table and shoe are locked FOR NO KEY UPDATE: a placement holding the coup's
lock still takes the key share its rows' foreign keys need (an exclusive lock on them would make a
void and a placement wait for each other, commit d678c69).
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from kernel.raw_rows import columns_sql, for_update, model_attnames, orm_values, prepared_cursor, sql_literal
from tables.models import Coup, Pit, Shoe, Table


def pit_locked(pit_id: int) -> Pit:
    """The pit's row, FOR UPDATE, before the tables it takes in or gives up (``tables_locked``)."""
    return Pit.objects.select_for_update().get(pk=pit_id)


def tables_locked(table_ids: list[int]) -> list[Table]:
    """Several tables' rows, FOR UPDATE, in primary-key order, so that two pits changed at once never deadlock."""
    return list(Table.objects.select_for_update(of=("self",)).filter(pk__in=table_ids).order_by("pk"))


def table_locked(table_id: int) -> Table:
    """The table's row, FOR UPDATE: opening a coup, a shoe change, rules and staff changes."""
    return Table.objects.select_for_update(of=("self",)).get(pk=table_id)


def shoe_locked(shoe_id: int) -> Shoe:
    """The shoe's row, FOR UPDATE, once its table is locked (or when no table lock is needed)."""
    return Shoe.objects.select_for_update(of=("self",)).select_related("table").get(pk=shoe_id)


def private_shoe_locked(*, table_id: int, player_id: int) -> Shoe | None:
    """The player's private shoe in play at the table (a table dealt on demand) with its table as it is now, found
    and locked FOR UPDATE (the shoe's row alone) in one raw statement, read at every deal: PostgreSQL reads the row
    again under the lock, so a shoe that ended meanwhile is not it."""
    with prepared_cursor() as cursor:
        cursor.execute(_private_shoe_sql() + for_update(of="s"), [table_id, player_id])
        row = cursor.fetchone()
    if row is None:
        return None
    shoe_fields, table_fields = model_attnames(Shoe), model_attnames(Table)
    shoe = Shoe.from_db(connection.alias, None, orm_values(Shoe, shoe_fields, row[: len(shoe_fields)]))
    shoe.table = Table.from_db(connection.alias, None, orm_values(Table, table_fields, row[len(shoe_fields) :]))
    return shoe


@cache
def _private_shoe_sql() -> str:
    quote = connection.ops.quote_name  # names of ours, not input
    shoes, tables = quote(Shoe._meta.db_table), quote(Table._meta.db_table)
    return (
        f"SELECT {columns_sql(Shoe, model_attnames(Shoe), alias='s')}, "  # noqa: S608
        f"{columns_sql(Table, model_attnames(Table), alias='t')} "
        f"FROM {shoes} s JOIN {tables} t ON t.id = s.table_id "
        f"WHERE s.table_id = %s AND s.player_id = %s AND s.state = {sql_literal(Shoe.State.IN_PLAY.value)}"
    )  # one at most (one_private_shoe_in_play_per_player)


def coup_locked(coup: Coup) -> Coup:
    """The coup's table and shoe (FOR NO KEY UPDATE), then the coup (FOR UPDATE)."""
    Table.objects.select_for_update(no_key=True).filter(pk=coup.table_id).values_list("pk").get()
    Shoe.objects.select_for_update(no_key=True).filter(pk=coup.shoe_id).values_list("pk").get()
    return coup_only_locked(coup.pk)


def coup_only_locked(coup_id: int) -> Coup:
    """The coup alone, for the money side (settlement, placement, corrections): it never takes the
    table or the shoe after this."""
    return Coup.objects.select_for_update(of=("self",)).select_related("table", "shoe").get(pk=coup_id)
