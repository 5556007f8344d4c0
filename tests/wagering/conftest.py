import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction

from tables.roles import PIT_BOSS, roles_ensure
from tests.factories import CoupFactory, TableFactory, UserFactory
from wagering import cancellation, placement, settlement, wallets
from wagering.checks import ledger_check, settlement_check
from wagering.errors import BetRejected
from wagering.models import Bet, LedgerTransaction
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

DATABASE_FIXTURES = {"db", "transactional_db"}


@pytest.fixture(autouse=True)
def books_balanced_after_each_test(request):
    """After every wagering test that used the database: the ledger balanced and chained, and every bet,
    wallet, bets-in-play account and stake total agreeing with the rows (``wagering.checks``). A test that
    breaks the books on purpose says so with ``@pytest.mark.books_broken_on_purpose``."""
    uses_database = request.node.get_closest_marker("django_db") or DATABASE_FIXTURES & set(request.fixturenames)
    if not uses_database or request.node.get_closest_marker("books_broken_on_purpose"):
        yield
        return
    request.getfixturevalue("_django_db_helper")  # set up before this fixture: its rollback comes after the checks
    yield
    ledger = ledger_check()
    assert ledger.ok, ledger.problems
    assert settlement_check(finished=False).problems == []


postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL: SQLite has neither row locks, concurrent writers nor deferred constraint triggers",
)


def waiting_for_a_lock() -> bool:
    """Whether a session of the test database waits for a lock (a race test's competitor has reached one). Asked
    again and again inside the first call's transaction: PostgreSQL keeps a transaction's first look at the
    sessions' activity unless told to look afresh (a competitor that reached its lock after that first look was
    never seen)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


@contextmanager
def ledger_tampered() -> Iterator[None]:
    """Corrupt the ledger on purpose (to test ``ledger_check``) as only a superuser can on PostgreSQL: in a
    replica session, which fires none of the triggers that keep it append-only and balances on their legs.
    The checks deferred until now run first, as at a commit: they would see the corruption otherwise."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        cursor.execute("SET session_replication_role = replica")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET session_replication_role = origin")


def fund(user, amount) -> None:
    wallet_deposit(user=user, amount=Decimal(amount), idempotency_key=uuid.uuid4().hex, reason="test")


@pytest.fixture
def table(db):
    return TableFactory()


@pytest.fixture
def coup(table):
    return CoupFactory(table=table)


@pytest.fixture
def player(db):
    user = UserFactory()
    fund(user, "10000.00")
    return user


@pytest.fixture
def sent_events(monkeypatch):
    """The live events the wagering services send, as (group kind, event type, data), once committed."""
    sent = []

    def recorder(kind):
        def send(*, event_type, data, **group):
            json.dumps(data)  # what the channel layer could carry: amounts as strings
            transaction.on_commit(lambda: sent.append((kind, event_type, data)))

        return send

    def many_users(*, event_type, data_by_user):
        def record():  # built on commit, as the real sender builds them (an EventsBuiltOnDemand)
            built = dict(data_by_user)
            json.dumps(built)
            sent.extend(("user", event_type, data) for data in built.values())

        transaction.on_commit(record)

    def totals(*, table_code, currency, data):
        json.dumps(data)
        transaction.on_commit(lambda: sent.append(("table", "bet_totals", data)))

    senders = {
        "table_event_send": recorder("table"),
        "table_totals_send": totals,
        "user_event_send": recorder("user"),
        "user_events_send": many_users,
    }
    for module in (placement, cancellation, settlement, wallets):
        for name, send in senders.items():
            if hasattr(module, name):
                monkeypatch.setattr(module, name, send)
    return sent


def rejected(user, coup, bets) -> BetRejected:
    """Place, expecting a refusal that leaves no bet and moves no money."""
    balance, transactions = wallet_balance(user=user), LedgerTransaction.objects.count()
    bets_before = Bet.objects.filter(coup=coup, state=Bet.State.ACCEPTED).count()
    with pytest.raises(BetRejected) as error:
        bet_batch_place(user=user, coup=coup, bets=bets)
    assert wallet_balance(user=user) == balance
    assert LedgerTransaction.objects.count() == transactions
    assert Bet.objects.filter(coup=coup, state=Bet.State.ACCEPTED).count() == bets_before
    assert all(isinstance(value, str) for value in error.value.details.values())
    return error.value


def funded(amount="10000.00"):
    user = UserFactory()
    fund(user, amount)
    return user


@pytest.fixture
def roots_clock_ahead(request):
    """The database's clock for the hourly roots (wagering/0022 refuses a root whose hour has not ended)
    moved 6 hours ahead while the test runs, so that it may seal the hours its rows were written in, as the
    sealer does with ``now=`` a few hours ahead. Replaced by the owner: the runtime role cannot."""
    if connection.vendor != "postgresql":
        yield
        return
    request.getfixturevalue("_django_db_helper")  # the test's database, before the owner's connection to it
    from tests.conftest import owner_connection

    def clock(ahead: str) -> None:
        with owner_connection() as owner, owner.cursor() as cursor:
            cursor.execute(
                "CREATE OR REPLACE FUNCTION public.wagering_ledger_roots_clock() RETURNS timestamptz LANGUAGE sql"
                f" STABLE SET search_path = pg_catalog, public, pg_temp AS $$ SELECT pg_catalog.now(){ahead} $$"
            )

    clock(" + interval '6 hours'")
    yield
    clock("")


@pytest.fixture
def bosses(db):
    """Two pit bosses: one requests a result correction, the other approves it (four eyes)."""
    group = roles_ensure()[PIT_BOSS]
    users = [get_user_model().objects.create_user(username=name, is_staff=True) for name in ("ana", "ben")]
    for user in users:
        user.groups.add(group)
    return users
