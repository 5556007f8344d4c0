"""The hourly roots against the runtime role's own inserts (wagering/0022): a hashed row takes only the id its
sequence drew, a root only the place the sealer would give it; ``ledger_verify`` flags a second audit copy of
a root; the sealer waits for client transactions only. Each attack as the role the suite connects as."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from tables.audit import audit_record
from tables.models import AuditLog
from tests.factories import UserFactory
from tests.wagering.conftest import fund, postgres_only
from wagering import ledger_roots
from wagering.ledger_roots_verify import ledger_roots_verify
from wagering.models import LedgerEntry, LedgerRoot, LedgerTransaction

HUGE = 9 * 10**15
EXPLICIT_ID = {
    "wagering_ledgertransaction": "INSERT INTO wagering_ledgertransaction (id, kind, currency, reason, created_at)"
    " VALUES (%s, 'deposit', 'EUR', 'forged', now())",
    "wagering_ledgerentry": "INSERT INTO wagering_ledgerentry"
    " (id, transaction_id, account_id, amount, balance_before, balance_after)"
    " SELECT %s, transaction_id, account_id, amount, balance_before, balance_after FROM wagering_ledgerentry LIMIT 1",
    "tables_auditlog": "INSERT INTO tables_auditlog"
    " (id, actor_label, action, object_type, object_id, before, after, reason, created_at)"
    " VALUES (%s, 'forger', 'forged', '', '', 'null', 'null', '', now())",
}


def refused(sql: str, params=None, match: str = "") -> None:
    with pytest.raises(DatabaseError, match=match), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def later(hours: float):
    return timezone.now() + timedelta(hours=hours)


def every_row_sealed() -> None:
    newest = LedgerRoot.objects.order_by("-hour").first()
    assert not LedgerTransaction.objects.filter(pk__gt=newest.transactions_last_id).exists()
    assert not AuditLog.objects.filter(pk__gt=newest.audit_last_id).exclude(action="ledger_root_sealed").exists()
    leaves = sum(root.leaf_count for root in LedgerRoot.objects.all())
    sealed_audit = AuditLog.objects.filter(pk__gt=newest.audit_last_id).count()
    rows = LedgerTransaction.objects.count() + LedgerEntry.objects.count() + AuditLog.objects.count()
    assert leaves == rows - sealed_audit
    assert ledger_roots_verify(start=later(-48), end=later(48)).ok


@postgres_only
@pytest.mark.postgres
@pytest.mark.parametrize("table", list(EXPLICIT_ID))
def test_an_explicit_id_is_refused_on_each_hashed_table(db, table):
    fund(UserFactory(), "10.00")  # this session has drawn an id of each table
    refused(EXPLICIT_ID[table], [HUGE], match="takes only the id its sequence draws")


@postgres_only
@pytest.mark.postgres
def test_ids_drawn_by_multi_row_insert_copy_and_bulk_create_pass_and_an_explicit_one_in_copy_does_not(db):
    AuditLog.objects.bulk_create([AuditLog(actor_label="bulk", action=f"n{n}") for n in range(3)])
    columns = "actor_label, action, object_type, object_id, before, after, reason, created_at"
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO tables_auditlog ({columns}) SELECT 'many', 'n' || g, '', '', 'null', 'null', '', now()"
            " FROM generate_series(1, 3) AS g ORDER BY g DESC"
        )
        with cursor.copy(f"COPY tables_auditlog ({columns}) FROM STDIN") as copy:
            for n in range(3):
                copy.write_row(["copied", f"n{n}", "", "", "null", "null", "", timezone.now()])
    assert AuditLog.objects.filter(actor_label__in=["bulk", "many", "copied"]).count() == 9
    copy_refused = pytest.raises((DatabaseError, psycopg.Error), match="takes only the id")
    with (
        copy_refused,
        transaction.atomic(),
        connection.cursor() as cursor,
        cursor.copy(f"COPY tables_auditlog (id, {columns}) FROM STDIN") as copy,
    ):
        copy.write_row([HUGE, "copied", "x", "", "", "null", "null", "", timezone.now()])


def forged_root(**fields) -> dict:
    newest = LedgerRoot.objects.order_by("-hour").first()
    values = {
        "hour": newest.hour + timedelta(hours=1),
        "transactions_after_id": newest.transactions_last_id,
        "transactions_last_id": newest.transactions_last_id,
        "audit_after_id": newest.audit_last_id,
        "audit_last_id": newest.audit_last_id,
        "leaf_count": 0,
        "merkle_root": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "previous_root": newest.root,
        "leaf_digests": b"",
    }
    values |= fields
    values.setdefault(
        "root",
        ledger_roots.chained_root(
            hour=values["hour"], previous_root=values["previous_root"], merkle_root_hex=values["merkle_root"]
        ),
    )
    return values


@postgres_only
@pytest.mark.postgres
def test_a_forged_root_is_refused_and_sealing_then_covers_every_row(db, roots_clock_ahead):
    """A root for a far hour (the sealer would skip to it), one whose ranges jump or do not follow, or whose
    chain does not hold: refused. Nor does an explicit huge id get in. The sealer then seals every row."""
    fund(UserFactory(), "25.00")
    ledger_roots.ledger_roots_seal(now=later(2))
    newest = LedgerRoot.objects.order_by("-hour").first()
    for fields, reason in (
        ({"hour": newest.hour + timedelta(days=400)}, "not the one after"),
        ({"transactions_last_id": HUGE, "audit_last_id": HUGE}, "not ids of rows"),
        ({"transactions_after_id": 0}, "do not follow"),
        ({"previous_root": "0" * 64}, "do not follow"),
        ({"root": "f" * 64}, "chain's hash"),
        ({"hour": newest.hour + timedelta(minutes=30)}, "on the hour"),
    ):
        with pytest.raises(DatabaseError, match=reason), transaction.atomic():
            LedgerRoot.objects.create(**forged_root(**fields))
    refused(EXPLICIT_ID["tables_auditlog"], [HUGE], match="takes only the id")
    fund(UserFactory(), "30.00")
    audit_record(action="test_note", after={"after": "the attempts"})
    sealed = ledger_roots.ledger_roots_seal(now=later(4))
    assert len(sealed) == 2
    every_row_sealed()


@postgres_only
@pytest.mark.postgres
def test_a_root_for_an_hour_not_ended_is_refused_by_the_database_clock(db):
    """Without the tests' clock ahead: the hour of now (or the next) has not ended 5 minutes ago."""
    with pytest.raises(DatabaseError, match="has not ended"), transaction.atomic():
        ledger_roots.ledger_roots_seal(now=later(2))
    assert not LedgerRoot.objects.exists()


def test_a_second_audit_copy_of_a_root_is_a_difference(db, roots_clock_ahead):
    fund(UserFactory(), "5.00")
    (root,) = ledger_roots.ledger_roots_seal(now=later(2))
    assert ledger_roots_verify(start=later(-48), end=later(48)).ok
    copy = AuditLog.objects.get(action=ledger_roots.ROOT_SEALED)
    audit_record(action=copy.action, actor_label=copy.actor_label, obj=root, after=copy.after)
    problems = ledger_roots_verify(start=later(-48), end=later(48)).problems
    assert any("2 copies of the root" in problem for problem in problems)


def test_the_sealer_waits_for_client_transactions_only():
    """Autovacuum, WAL senders and other background processes hold no ids; a session the role cannot see
    (NULL backend_type) is counted apart and reported."""
    query = " ".join(ledger_roots.OPEN_TRANSACTIONS.split())
    assert "backend_type = 'client backend' AND xact_start < %s" in query
    assert "count(*) FILTER (WHERE backend_type IS NULL)" in query
    assert "datname = current_database() AND pid <> pg_backend_pid()" in query


@postgres_only
@pytest.mark.postgres
def test_each_hashed_tables_id_guard_names_its_own_sequence(db):
    """The guard is told its table's sequence once, by its trigger (wagering/0027), not looked up at each row:
    a trigger naming another table's sequence would compare each id with the wrong one."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, encode(t.tgargs, 'escape') FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
            " WHERE t.tgname = c.relname || '_id_drawn'"
        )
        named = dict(cursor.fetchall())
        assert set(named) == set(EXPLICIT_ID)
        for table, argument in named.items():
            cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [f"public.{table}"])
            assert argument.removesuffix("\\000") == cursor.fetchone()[0]
        # Its owner's to call (it runs as them): nobody else may, with a sequence of their choice.
        cursor.execute(
            "SELECT has_function_privilege('public.wagering_identity_drawn()', 'EXECUTE'),"
            " pg_get_userbyid(p.proowner) = current_user FROM pg_proc p WHERE p.proname = 'wagering_identity_drawn'"
        )
        executable, owner = cursor.fetchone()
        assert executable == owner
