"""Shared fixtures. Services are tested against the configured database (SQLite or PostgreSQL)."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache

from tables.services import table_create, table_open


@pytest.fixture(autouse=True)
def celery_in_process():
    """Tasks run in the test's process (settlement included), on Redis as on the embedded default.

    Tests of a real worker process opt out by setting ``task_always_eager`` back to False.
    """
    from casino import celery_app

    always_eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = always_eager


@pytest.fixture(autouse=True)
def bets_in_the_tests_thread(settings):
    """Bet requests carried out in the test's own thread and transaction (the intake's table threads have
    connections of their own, which would not see a test's uncommitted rows): the intake's tests, the
    browser tests' server and the fault tests' processes turn group commit on."""
    settings.BET_INTAKE_GROUP_COMMIT = False


@pytest.fixture(autouse=True)
def bet_endpoints_unlimited(monkeypatch):
    """The table page's bet endpoints take any number of a player's requests a second: tests send many as
    one player (and SQLite gives a later test's player the same id within the second). The allowance's own
    test sets it back."""
    from casino import player_api

    monkeypatch.setattr(player_api, "BET_REQUEST_BURST", 10**9)


@pytest.fixture(autouse=True)
def webhooks_to_loopback(settings):
    """The tests' webhook receivers listen on 127.0.0.1, and names like partner.example do not
    resolve here; tests of the target guard turn it back on."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True


@pytest.fixture(scope="session", autouse=True)
def flush_past_the_ledger_guards():
    """A transactional test ends by emptying every table with TRUNCATE, which PostgreSQL refuses for the
    ledger and the audit log (tables/0008, wagering/0010): the test database's flush runs as a replica
    session, which fires no trigger (the tests connect as a superuser; the platform's role would not)."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    flush = DatabaseOperations.execute_sql_flush

    def execute_sql_flush(self, sql_list):
        flush(self, ["SET LOCAL session_replication_role = replica", *sql_list])

    DatabaseOperations.execute_sql_flush = execute_sql_flush
    yield
    DatabaseOperations.execute_sql_flush = flush


# --- The floor: a pit boss, an automatic table and a dealer table -----------------------------------


@pytest.fixture
def pit_boss(db):
    return get_user_model().objects.create_user(username="boss", password="x", is_staff=True)


@pytest.fixture
def auto_table(db, pit_boss):
    table = table_create(code="t1", name="Test 1", actor=pit_boss, betting_seconds=5)
    return table_open(table=table, actor=pit_boss)


@pytest.fixture
def dealer_table(db, pit_boss):
    table = table_create(code="d1", name="Dealer 1", actor=pit_boss, dealing_mode="dealer")
    return table_open(table=table, actor=pit_boss)


# --- Sockets --------------------------------------------------------------------------------------------------


@pytest.fixture
def in_memory_layer_and_fresh_cache(settings):
    """A socket test's layer in its own process (the cross-process tests use Redis), and the socket allowances
    and chat pauses of earlier tests forgotten."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    cache.clear()
