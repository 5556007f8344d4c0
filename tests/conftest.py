"""Shared fixtures. Services are tested against the configured database (SQLite or PostgreSQL)."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from hypothesis import settings as hypothesis_settings
from pytest_django.plugin import blocking_manager_key

from kernel import database_roles, live
from kernel.rate_counts import counts_cache
from tables.models import Table
from tables.roles import DEALER
from tables.services import dealer_login, table_create, table_open
from tests.factories import TableFactory, staff_client

# Property tests assert what the code does, never how fast (speed is measured in bench/): Hypothesis's deadline
# of 200 ms an example failed CI once on a pure road function that took 375 ms in one example and 0.26 ms when
# replayed, the shared machine busy elsewhere.
hypothesis_settings.register_profile("punto", deadline=None)
hypothesis_settings.load_profile("punto")


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
    from casino.players import api as player_api

    monkeypatch.setattr(player_api, "BET_REQUEST_BURST", 10**9)


@pytest.fixture(autouse=True)
def webhooks_to_loopback(settings):
    """The tests' webhook receivers listen on 127.0.0.1, and names like partner.example do not
    resolve here; tests of the target guard turn it back on."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True


@pytest.fixture(autouse=True)
def partner_api_reads_fresh():
    """The partner API's keys, partners and players read afresh in every test (kept a few seconds otherwise:
    partners.selectors.accounts), as SQLite gives a later test's rows the same ids."""
    from partners.selectors.accounts import partner_api_reads_forget

    partner_api_reads_forget()


@pytest.fixture(autouse=True)
def tables_found_fresh():
    """The table sockets find their tables afresh in every test (a process keeps them a minute otherwise:
    casino.players.table_socket), as a later test may have no table of an earlier one's code."""
    from casino.players.table_socket import tables_found_forget

    tables_found_forget()


# --- The database's roles (PostgreSQL): the tests connect as the runtime role --------------------------------
# The tables' owner (DATABASE_MIGRATE_URL) creates and migrates the test database (``migrate`` then grants the
# runtime role its privileges: kernel.database_roles), empties it after each transactional test and drops it;
# every test connects as the runtime role (DATABASE_URL), but those marked ``database_owner`` or
# ``books_broken_on_purpose``, which break the books past the triggers or migrate. With one URL, one role.

OWNER_MARKERS = ("database_owner", "books_broken_on_purpose")
OWNER = database_roles.owner_credentials()  # DATABASE_MIGRATE_URL's: the settings do not read it
runtime_credentials = pytest.StashKey[dict]()


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "database_owner: the test connects as the tables' owner (DATABASE_MIGRATE_URL), not the runtime role"
    )


def credentials_use(credentials: dict | None) -> dict | None:
    """The default connection's next connections with ``credentials``; the ones it had (None on SQLite)."""
    return None if credentials is None else database_roles.credentials_use(connection, credentials)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """Next pytest-django creates and migrates the test database: as the owner (the runtime role has no
    CREATEDB). The value: the credentials before."""
    return credentials_use(OWNER)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_modify_db_settings):
    """pytest-django's, then the tests connect as they did before (the runtime role); the owner drops the database."""
    owner = credentials_use(django_db_modify_db_settings)
    yield
    credentials_use(owner)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """Before any fixture (the test's transaction among them): the owner's connection for a test marked so."""
    if OWNER and any(item.get_closest_marker(name) for name in OWNER_MARKERS):
        item.stash[runtime_credentials] = credentials_use(OWNER)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After every fixture (a migration test's own puts every migration back first): an owner's transactional test
    may have made tables anew, so the runtime role's privileges are granted again; then the runtime role again."""
    try:
        return (yield)
    finally:
        if runtime_credentials in item.stash:
            if not connection.in_atomic_block:
                with item.config.stash[blocking_manager_key].unblock():
                    database_roles.runtime_role_grant()
            credentials_use(item.stash[runtime_credentials])


@contextmanager
def owner_connection() -> Iterator[BaseDatabaseWrapper]:
    """A connection of its own to the test database, as the tables' owner (the only role on SQLite), in a
    transaction committed when the block ends. It does not see a test's uncommitted rows."""
    owner = connection.copy()
    owner.settings_dict["OPTIONS"].pop("pool", None)  # a pool is shared per alias: not the runtime role's
    owner.settings_dict.update(OWNER or {})
    owner.set_autocommit(False)
    try:
        yield owner
        owner.commit()
    finally:
        owner.close()


@pytest.fixture(scope="session", autouse=True)
def flush_past_the_ledger_guards():
    """A transactional test ends by emptying every table with TRUNCATE, which PostgreSQL refuses for the
    ledger and the audit log (tables/0008, wagering/0010), and which the runtime role may not do: the owner
    flushes, in a replica session, which fires no trigger (scripts/services.sh lets the owner set it)."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    flush = DatabaseOperations.execute_sql_flush

    def execute_sql_flush(self, sql_list):
        with owner_connection() as owner, owner.cursor() as cursor:
            for sql in ["SET LOCAL session_replication_role = replica", *sql_list]:
                cursor.execute(sql)

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


@pytest.fixture
def rng_table(db):
    """The demo's table dealt on demand (seed 004: four decks), open."""
    return TableFactory(code="rng5", name="Deal Your Own 5", dealing_mode=Table.DealingMode.RNG, decks=4)


@pytest.fixture
def dealer(dealer_table, pit_boss):
    """Carla, logged in as the dealer at the dealer table."""
    client = staff_client("carla", DEALER)
    dealer_login(table=dealer_table, dealer=client.user, actor=pit_boss)
    return client


# --- Sockets --------------------------------------------------------------------------------------------------


@pytest.fixture
def in_memory_layer_and_fresh_cache(settings):
    """A socket test's layer in its own process (the cross-process tests use Redis), and the socket allowances
    and chat pauses of earlier tests forgotten. So are the bet totals an earlier test's placement left waiting
    for the throttle's interval: its timer would deliver them to this test's sockets, between its own events."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    cache.clear()
    totals_throttle_forget()
    yield
    totals_throttle_forget()


def totals_throttle_forget() -> None:
    with live._totals_lock:
        live._totals_waiting.clear()
        live._totals_sent_at.clear()
    counts_cache.clear()  # the tables' intervals taken across processes (on Redis)


@pytest.fixture
def batch_reads_counted(monkeypatch):
    """``counted(module)``: the codes of the tables whose live coup a bet batch of ``module`` (the intake, the
    partner API's bets) read again itself, not handed over by its requests' threads
    (``tables.selectors.table_with_live_coup_for_batch``: their own read, or one of its own)."""

    def counted(module) -> list[str]:
        done: list[str] = []
        chosen = module.table_with_live_coup_for_batch

        def counting(*, code: str, reads: list) -> tuple:
            read = chosen(code=code, reads=reads)
            if read is not reads[0]:
                done.append(code)
            return read

        monkeypatch.setattr(module, "table_with_live_coup_for_batch", counting)
        return done

    return counted
