"""The hot paths' raw statements (``kernel.raw_rows``): on PostgreSQL a bet's statements are prepared once a
connection, Django's other queries never; the rows they give are what the ORM would give."""

import pytest
from django.db import connection

from kernel.raw_rows import prepared_cursor
from tables.models import Coup
from tests.factories import CoupFactory
from tests.wagering.conftest import funded, postgres_only
from wagering.placement import bet_batch_place

pytestmark = pytest.mark.django_db


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
        return [statement for (statement,) in cursor.fetchall()]


@postgres_only
def test_a_bets_statements_are_prepared_once_a_connection_and_orm_queries_never():
    coup, player = CoupFactory(), funded()
    for _ in range(4):
        bet_batch_place(user=player, coup=coup, bets={"player": "1"})
    for _ in range(4):  # an ORM query, run as often: bound on the client
        Coup.objects.filter(pk=coup.pk).values_list("round_id", flat=True).get()
    prepared = prepared_statements()
    assert any("FOR UPDATE" in statement and Coup._meta.db_table in statement for statement in prepared)  # the lock
    assert any("INSERT INTO" in statement for statement in prepared)  # the placement's one statement
    assert all('"tables_coup"."round_id"' not in statement for statement in prepared)  # not the ORM's

    before = len(prepared)
    for _ in range(4):
        bet_batch_place(user=player, coup=coup, bets={"player_pair": "1"})
    assert len(prepared_statements()) == before  # the same statements again, not new ones


@postgres_only
def test_with_prepared_statements_turned_off_nothing_more_is_prepared(monkeypatch):
    """``DATABASE_PREPARED=0`` (a pooler that cannot keep them): the hot statements bind on the client too."""
    monkeypatch.delitem(connection.settings_dict["OPTIONS"], "prepare_threshold", raising=False)
    coup, player = CoupFactory(), funded()
    assert type(prepared_cursor().cursor) is type(connection.cursor().cursor)
    before = prepared_statements()
    for bet_type in ("player", "tie", "player_pair", "player"):
        bet_batch_place(user=player, coup=coup, bets={bet_type: "1"})
    assert prepared_statements() == before
