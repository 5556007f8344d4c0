"""The hot paths' raw statements (``kernel.raw_rows``): on PostgreSQL a bet's statements are prepared once a
connection, Django's other queries never, and a prepared read a migration retyped costs a connection once; a row
inserted or updated raw is the row the ORM would have saved."""

import pytest
from django.conf import settings
from django.db import NotSupportedError, connection, transaction
from django.utils import timezone

from kernel.raw_rows import CHANGED_RESULT_TYPE, prepared_cursor, row_insert, row_update
from tables.models import AuditLog, Coup, Table
from tables.selectors import table_with_live_coup
from tests.conftest import owner_connection
from tests.factories import CoupFactory, TableFactory
from tests.wagering.conftest import funded, postgres_only
from wagering.checks import ledger_check
from wagering.models import Account, Bet, BetBatch, LedgerTransaction
from wagering.placement import PlacedBatch, bet_batch_place, bet_stakes_checked
from wagering.placement_together import PlacementAsked, bets_place_together

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


def groups_placed(coup, players, times: int) -> None:
    """``times`` groups of one bet each by ``players`` (the group commit's path: its rows inserted from arrays)."""
    for _ in range(times):
        asked = [
            PlacementAsked(user=p, stakes=bet_stakes_checked({"player": "1"}), action="bet_batch_placed")
            for p in players
        ]
        with transaction.atomic():
            assert all(isinstance(placed, PlacedBatch) for placed in bets_place_together(coup=coup, asked=asked))


@postgres_only
@pytest.mark.parametrize("prepared", [True, False])
def test_a_groups_rows_are_inserted_from_arrays_bound_on_the_server_and_prepared(monkeypatch, prepared):
    """A group's ledger transactions, batches and bets: one INSERT each from one array a column, whatever the
    group's size, bound on the server and prepared; with ``DATABASE_PREPARED=0``, bound on the client."""
    monkeypatch.setattr(settings, "DATABASE_PREPARED", prepared)
    coup, players = CoupFactory(), [funded() for _ in range(3)]
    before = prepared_statements()
    groups_placed(coup, players[:1], times=1)
    groups_placed(coup, players, times=3)
    from_arrays = [statement for statement in prepared_statements() if "FROM unnest(" in statement]
    if prepared:
        inserts = [statement.split()[2].strip('"') for statement in from_arrays if statement.startswith("INSERT")]
        assert set(inserts) == {Bet._meta.db_table, BetBatch._meta.db_table, LedgerTransaction._meta.db_table}
        assert any(statement.startswith(f'UPDATE "{Account._meta.db_table}"') for statement in from_arrays)  # balances
        assert all("$1::" in statement for statement in from_arrays)
    else:
        assert prepared_statements() == before
    assert Bet.objects.filter(coup=coup).count() == 10 and ledger_check().ok


@postgres_only
def test_with_prepared_statements_turned_off_nothing_more_is_prepared(monkeypatch):
    """``DATABASE_PREPARED=0`` (a pooler that cannot keep them): the hot statements bind on the client too."""
    monkeypatch.setattr(settings, "DATABASE_PREPARED", False)
    coup, player = CoupFactory(), funded()
    assert type(prepared_cursor().cursor) is type(connection.cursor().cursor)
    before = prepared_statements()
    for bet_type in ("player", "tie", "player_pair", "player"):
        bet_batch_place(user=player, coup=coup, bets={bet_type: "1"})
    assert prepared_statements() == before


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_column_retyped_under_a_prepared_read_fails_once_a_connection_not_every_time():
    """A release migrates before its hosts restart: a prepared statement returning a retyped column is refused,
    and psycopg would keep it until a rollback, which a read outside a transaction (a bet request's table read)
    never makes: each pooled connection refuses it once, then is replaced (``PreparedCursor``)."""
    TableFactory(code="pp1", name="Prepared")
    for _ in range(3):
        assert table_with_live_coup(code="pp1")[0].name == "Prepared"  # prepared from its third run
    with owner_connection() as owner, owner.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {Table._meta.db_table} ALTER COLUMN name TYPE varchar(81)")
    refused_on = []
    try:
        for _ in range(3 * connection.settings_dict["OPTIONS"]["pool"]["max_size"]):  # every pooled connection
            connection.ensure_connection()
            backend = connection.connection.info.backend_pid
            try:
                assert table_with_live_coup(code="pp1")[0].name == "Prepared"
            except NotSupportedError as error:
                assert CHANGED_RESULT_TYPE in str(error)
                refused_on.append(backend)
            connection.close_if_unusable_or_obsolete()  # as Django does when a request ends
    finally:
        connection.close()
        with owner_connection() as owner, owner.cursor() as cursor:
            cursor.execute(f"ALTER TABLE {Table._meta.db_table} ALTER COLUMN name TYPE varchar(80)")
        connection.close_pool()  # its connections prepared the read on the retyped column: the next tests' own
    assert refused_on  # the connection that prepared it, at least
    assert len(refused_on) == len(set(refused_on)), refused_on


def test_a_row_inserted_raw_is_the_row_the_orm_would_save():
    """``row_insert`` (the audit log, the ledger's transactions, a private coup): defaults, ``auto_now_add``, JSON
    and a JSON field left empty (SQL NULL, not JSON null) as ``save()`` writes them."""
    table = TableFactory()
    before = timezone.now()
    raw = row_insert(AuditLog(action="raw", table=table, object_type="Coup", object_id="7", after={"staked": "1.50"}))
    orm = AuditLog.objects.create(
        action="orm", table=table, object_type="Coup", object_id="7", after={"staked": "1.50"}
    )

    read = AuditLog.objects.get(pk=raw.pk)
    assert not raw._state.adding and raw.pk != orm.pk
    assert read.created_at == raw.created_at and before <= read.created_at <= timezone.now()
    for field in AuditLog._meta.concrete_fields:
        if field.name not in ("id", "action", "created_at"):
            assert getattr(read, field.attname) == getattr(orm, field.attname), field.name
    assert AuditLog.objects.filter(pk=raw.pk, before__isnull=True).exists()  # SQL NULL, as the ORM's


def test_a_row_updated_raw_is_the_row_the_orm_would_save():
    coup = CoupFactory()
    settled_at = timezone.now()
    row_update(Coup, coup.pk, state=Coup.State.SETTLED, settled_at=settled_at, player_pair=True)
    coup.refresh_from_db()
    assert (coup.state, coup.settled_at, coup.player_pair) == (Coup.State.SETTLED, settled_at, True)
    assert Coup.objects.filter(pk=coup.pk, state="settled", settled_at=settled_at).exists()


def test_a_row_insert_is_refused_what_save_would_do_otherwise():
    saved = row_insert(AuditLog(action="once"))
    with pytest.raises(ValueError, match="saved already"):
        row_insert(saved)  # the audit log is append-only: never a second write of a row
    with pytest.raises(ValueError, match="unsaved related object"):
        row_insert(AuditLog(action="x", table=Table(code="unsaved")))  # its foreign key would be NULL
    assert AuditLog.objects.filter(action="x").count() == 0
