"""Reads for the live table: the snapshot a browser gets on connect."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from django.db import connection

from baccarat.roads import BANKER, PLAYER, TIE, Coup, Roadmap, build_roadmap
from kernel.raw_rows import columns_sql, orm_values, prepared_cursor, sql_literal
from roadmaps.models import ShoeRoad
from tables.models import Coup as TableCoup
from tables.models import Shoe, Table
from tables.players import dealer_display_name
from tables.selectors import (
    coup_public,
    shoe_public,
    table_coup_rules,
    table_current_coup,
    table_dealer,
    table_seats_public,
    table_shoe_holder_public,
    table_shoe_in_play,
)


def shoe_roadmap(*, shoe: Shoe | None) -> dict:
    """The roads of a shoe (empty roads for a new shoe or none)."""
    if shoe is None:
        return Roadmap().to_dict()
    road = ShoeRoad.objects.filter(shoe=shoe).first()
    return road.roadmap if road is not None else Roadmap().to_dict()


_RESULT_LETTER = {"banker": BANKER, "player": PLAYER, "tie": TIE}


def shoe_road_coups(*, shoe_id: int) -> list[Coup]:
    """The shoe's played coups in order, as the roads read them (void coups have no result). Only the four
    columns the roads need, not the coups' rows: a private shoe's roads are built on every deal."""
    played = TableCoup.objects.filter(shoe_id=shoe_id, state__in=[TableCoup.State.RESOLVED, TableCoup.State.SETTLED])
    return _road_coups(played.order_by("number").values_list(*_ROAD_COLUMNS))


def private_round_roadmap(*, round_id: str, player_id: int) -> dict:
    """The roads of the player's private shoe that their round ``round_id`` was dealt from (its last coup on them
    when the cut card ended it), in one raw statement prepared once: a deal's answer carries them. Another
    player's round finds no shoe of this player's: empty roads."""
    with prepared_cursor() as cursor:
        cursor.execute(_round_road_coups_sql(), [round_id, player_id])
        rows = cursor.fetchall()
    return build_roadmap(_road_coups(orm_values(TableCoup, _ROAD_COLUMNS, row) for row in rows))


_ROAD_COLUMNS = ("winner", "banker_pair", "player_pair", "natural")


def _road_coups(rows: Iterable[Sequence]) -> list[Coup]:
    return [
        Coup(result=_RESULT_LETTER[winner], banker_pair=banker_pair, player_pair=player_pair, natural=natural)
        for winner, banker_pair, player_pair, natural in rows
    ]


@cache
def _round_road_coups_sql() -> str:
    coups = connection.ops.quote_name(TableCoup._meta.db_table)  # names of ours, not input
    played = ", ".join(sql_literal(state.value) for state in (TableCoup.State.RESOLVED, TableCoup.State.SETTLED))
    return (
        f"SELECT {columns_sql(TableCoup, _ROAD_COLUMNS, alias='c')} FROM {coups} c "  # noqa: S608
        f"WHERE c.shoe_id = (SELECT r.shoe_id FROM {coups} r WHERE r.round_id = %s AND r.player_id = %s) "
        f"AND c.state IN ({played}) ORDER BY c.number"
    )


def private_shoe_roadmap(*, shoe: Shoe | None) -> dict:
    """The roads of a player's private shoe (a table dealt on demand), built from its coups on each read: kept
    nowhere and sent to no table (``shoe_road_add_coup`` pushes a live table's roads to all who watch it); the
    caller passes the shoe of the player asking, so one player's roads never reach another."""
    return build_roadmap(shoe_road_coups(shoe_id=shoe.pk)) if shoe is not None else Roadmap().to_dict()


def table_snapshot(*, table: Table) -> dict:
    """Everything a browser needs to draw the table from scratch (JSON-ready, amounts as strings)."""
    return _table_snapshot(table=table, coup=table_current_coup(table=table))


def _table_snapshot(*, table: Table, coup: TableCoup | None) -> dict:
    shoe = coup.shoe if coup is not None else table_shoe_in_play(table=table)
    session = table_dealer(table=table)
    rules = table_coup_rules(table=table)
    paytables = rules.table.paytables()
    return {
        "table": {
            "code": table.code,
            "name": table.name,
            "is_open": table.is_open,
            "dealing_mode": table.dealing_mode,
            "dealer": dealer_display_name(session.dealer) if session else None,
            "video_url": table.video_url,
            "rules": rules.to_json(),
            "payouts": {bet: paytable.odds_label() for bet, paytable in paytables.items()},
        },
        "shoe": shoe.number if shoe is not None else None,
        "shoe_info": shoe_public(shoe=shoe),
        "seats": table_seats_public(table=table) if table.dealing_mode == Table.DealingMode.DEALER else [],
        "shoe_holder": table_shoe_holder_public(table=table),
        "coup": coup_public(coup=coup) if coup is not None else None,
        "roads": shoe_roadmap(shoe=shoe),
    }


def table_snapshot_read(*, code: str) -> tuple[dict, TableCoup | None] | None:
    """The table ``code`` read afresh (None: no such table): its snapshot and its live coup (None: none in
    progress), from one read of the coup: what a process's sockets share between the table's events."""
    table = Table.objects.filter(code=code).first()
    if table is None:
        return None
    coup = table_current_coup(table=table)
    live = coup if coup is not None and coup.state in TableCoup.LIVE_STATES else None
    return _table_snapshot(table=table, coup=coup), live
