"""The ledger's hourly roots: sealing (the rows of an hour, the chain, catch-up, once), ``ledger_verify``,
and the root finding a row edited as the database's owner, past every trigger."""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
from datetime import UTC, timedelta

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from casino import celery_app
from tables.audit import audit_record
from tables.models import AuditLog
from tests.factories import UserFactory
from tests.wagering.conftest import fund, ledger_tampered, postgres_only
from wagering import ledger_roots
from wagering.ledger_roots_verify import ledger_roots_verify
from wagering.models import LedgerEntry, LedgerRoot, LedgerTransaction

# The hours sealed here end a few hours from now: the database's clock for the roots is moved ahead.
pytestmark = pytest.mark.usefixtures("roots_clock_ahead")


def later(hours: float):
    return timezone.now() + timedelta(hours=hours)


def some_money_moved(amount="250.00") -> None:
    user = UserFactory()
    fund(user, amount)
    audit_record(action="test_note", reason='ünïcode, "quotes" and\nnewlines', after={"b": 1.5, "a": [None, "x"]})


def verify(*args: str) -> str:
    out = []

    class Out:
        def write(self, text: str) -> None:
            out.append(text)

    call_command("ledger_verify", *args, stdout=Out(), stderr=Out())
    return "".join(out)


# --- The root, recomputed here from the rows, without the code that sealed it ---------------------


def independent_leaf(row: list) -> bytes:
    return hashlib.sha256(b"\x00" + json.dumps(row, sort_keys=True, separators=(",", ":")).encode()).digest()


def independent_tree(leaves: list[bytes]) -> bytes:
    """RFC 6962 §2.1, as written there: split at the largest power of two below n."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    split = 1
    while split * 2 < len(leaves):
        split *= 2
    return hashlib.sha256(b"\x01" + independent_tree(leaves[:split]) + independent_tree(leaves[split:])).digest()


def utc(moment) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def independent_merkle_root(root: LedgerRoot) -> str:
    leaves = []
    transactions = LedgerTransaction.objects.filter(
        pk__gt=root.transactions_after_id, pk__lte=root.transactions_last_id
    ).order_by("pk")
    for each in transactions:
        leaves.append(
            independent_leaf(
                [
                    "wagering_ledgertransaction",
                    each.pk,
                    each.kind,
                    each.currency,
                    each.coup_id,
                    each.actor_id,
                    each.reason,
                    utc(each.created_at),
                ]
            )
        )
        for leg in LedgerEntry.objects.filter(transaction=each).order_by("pk"):
            leaves.append(
                independent_leaf(
                    [
                        "wagering_ledgerentry",
                        leg.pk,
                        leg.transaction_id,
                        leg.account_id,
                        str(leg.amount),
                        str(leg.balance_before),
                        str(leg.balance_after),
                    ]
                )
            )
    for row in AuditLog.objects.filter(pk__gt=root.audit_after_id, pk__lte=root.audit_last_id).order_by("pk"):
        fields = [row.actor_id, row.actor_label, row.action, row.table_id, row.object_type, row.object_id]
        leaves.append(
            independent_leaf(
                ["tables_auditlog", row.pk, *fields, row.before, row.after, row.reason, utc(row.created_at)]
            )
        )
    assert len(leaves) == root.leaf_count
    return independent_tree(leaves).hex()


def test_an_hour_root_is_the_merkle_root_of_its_rows_recomputed_independently(db):
    some_money_moved("250.00")
    some_money_moved("13.37")
    rows = LedgerTransaction.objects.count() + LedgerEntry.objects.count() + AuditLog.objects.count()
    (root,) = ledger_roots.ledger_roots_seal(now=later(2))  # the first: every row before its hour's end
    assert root.leaf_count == rows and rows >= 2 + 4 + 2
    assert root.merkle_root == independent_merkle_root(root)
    assert root.previous_root == "0" * 64
    hour = root.hour.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert (
        root.root == hashlib.sha256(f"punto-ledger-root-v1:{hour}:{'0' * 64}:{root.merkle_root}".encode()).hexdigest()
    )
    published = AuditLog.objects.get(action="ledger_root_sealed", object_id=str(root.pk))
    assert (published.after["root"], published.after["merkle_root"], published.after["hour"]) == (
        root.root,
        root.merkle_root,
        hour,
    )


def test_the_hours_are_chained_and_caught_up_in_order_once(db):
    some_money_moved()
    start = later(2)
    (first,) = ledger_roots.ledger_roots_seal(now=start)
    assert ledger_roots.ledger_roots_seal(now=start) == []  # nothing more due
    # Committed after its hour was sealed, with an earlier created_at: the next hour's range takes it.
    some_money_moved("40.00")
    late = LedgerTransaction.objects.order_by("pk").last()
    assert late.created_at < first.hour + timedelta(hours=1)
    # The beat was down for three hours: the next run seals the three, oldest first.
    caught_up = ledger_roots.ledger_roots_seal(now=start + timedelta(hours=3))
    assert [root.hour - first.hour for root in caught_up] == [timedelta(hours=n) for n in (1, 2, 3)]
    assert caught_up[0].transactions_after_id == first.transactions_last_id
    assert caught_up[0].transactions_last_id == late.pk and caught_up[0].merkle_root == independent_merkle_root(
        caught_up[0]
    )
    chain = [first, *caught_up]
    for before, after in itertools.pairwise(chain):
        assert after.previous_root == before.root
        assert after.transactions_after_id == before.transactions_last_id
        assert after.audit_after_id == before.audit_last_id
    # Every sealing's own audit row is written after its hour's rows, and a later hour holds it: the roots
    # are hashed too.
    for before, after in itertools.pairwise(chain):
        published = AuditLog.objects.get(action="ledger_root_sealed", object_id=str(before.pk))
        assert after.audit_after_id < published.pk <= after.audit_last_id
    assert ledger_roots.ledger_roots_seal(now=start + timedelta(hours=3)) == []
    assert LedgerRoot.objects.count() == 4
    assert "4 sealed hours verified" in verify()


def test_an_hour_is_unique(db):
    (root,) = ledger_roots.ledger_roots_seal(now=later(2))
    duplicate = {name: getattr(root, name) for name in ("hour", "merkle_root", "previous_root", "leaf_count")}
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerRoot.objects.create(
            **duplicate,
            root="f" * 64,
            leaf_digests=b"",
            transactions_after_id=0,
            transactions_last_id=0,
            audit_after_id=0,
            audit_last_id=0,
        )


def test_the_hourly_job_is_in_the_beat_schedule():
    entry = settings.CELERY_BEAT_SCHEDULE["casino-ledger-roots-seal"]
    assert entry["task"] in celery_app.tasks
    assert entry["schedule"].minute == {6} and len(entry["schedule"].hour) == 24
    assert settings.CELERY_TASK_ROUTES[entry["task"]] == {"queue": "reports"}


# --- ledger_verify -------------------------------------------------------------------------------


def test_ledger_verify_passes_on_untouched_rows_and_takes_a_window(db):
    some_money_moved()
    start = later(2)
    (first,) = ledger_roots.ledger_roots_seal(now=start)
    ledger_roots.ledger_roots_seal(now=start + timedelta(hours=2))
    assert "3 sealed hours verified" in verify("--from", first.hour.isoformat(), "--to", later(5).isoformat())
    second_hour = (first.hour + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    assert "2 sealed hours verified" in verify("--from", second_hour)
    with pytest.raises(CommandError, match="not an ISO 8601 time"):
        verify("--from", "yesterday")


@pytest.mark.books_broken_on_purpose
def test_ledger_verify_names_a_leg_edited_as_the_owner(db):
    """As the owner or a superuser (a replica session fires no trigger), a leg's amount is changed: the
    database alone cannot tell; the sealed root can, and its digests name the leg."""
    some_money_moved("250.00")
    start = later(2)
    ledger_roots.ledger_roots_seal(now=start)
    some_money_moved("99.00")
    ledger_roots.ledger_roots_seal(now=start + timedelta(hours=2))
    leg = LedgerEntry.objects.filter(amount=99).order_by("pk").first()
    with ledger_tampered(), connection.cursor() as cursor:
        cursor.execute("UPDATE wagering_ledgerentry SET amount = 9900, balance_after = 9900 WHERE id = %s", [leg.pk])
    with pytest.raises(CommandError, match=rf"first row that differs: wagering_ledgerentry {leg.pk}$"):
        verify("--to", later(5).isoformat())


@pytest.mark.database_owner  # past the triggers: a replica session
def test_ledger_verify_names_an_audit_row_edited_or_removed_as_the_owner(db):
    some_money_moved()
    ledger_roots.ledger_roots_seal(now=later(2))
    note = AuditLog.objects.get(action="test_note")
    with ledger_tampered(), connection.cursor() as cursor:
        cursor.execute("UPDATE tables_auditlog SET reason = 'nothing to see' WHERE id = %s", [note.pk])
    with pytest.raises(CommandError, match=rf"tables_auditlog {note.pk}$"):
        verify()
    with ledger_tampered(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM tables_auditlog WHERE id = %s", [note.pk])
    result = ledger_roots_verify_all()
    assert (result.first_row.table, result.first_row.id, result.first_row.how) == (
        "tables_auditlog",
        note.pk,
        "removed",
    )


def ledger_roots_verify_all():
    return ledger_roots_verify(start=later(-48), end=later(48))


@pytest.mark.database_owner  # past the triggers: a replica session
def test_ledger_verify_finds_a_root_rewritten_with_its_rows(db):
    """An owner who edits a row and rewrites that hour's stored root to match still breaks the chain (and the
    audit log's and the partners' copies)."""
    some_money_moved()
    start = later(2)
    (first,) = ledger_roots.ledger_roots_seal(now=start)
    ledger_roots.ledger_roots_seal(now=start + timedelta(hours=1))
    with ledger_tampered(), connection.cursor() as cursor:
        cursor.execute("UPDATE wagering_ledgerroot SET root = %s WHERE id = %s", ["e" * 64, first.pk])
    problems = ledger_roots_verify_all().problems
    assert any("does not chain" in problem for problem in problems)
    assert any("audit log's copy" in problem for problem in problems)
    assert any("previous root is not the root before it" in problem for problem in problems)


# --- PostgreSQL: the table is append-only; sealers at once seal an hour once ------------------------


@postgres_only
@pytest.mark.postgres
@pytest.mark.database_owner  # the trigger refuses even the owner (the runtime role has no UPDATE or DELETE)
def test_the_roots_table_refuses_update_delete_and_truncate(db):
    (root,) = ledger_roots.ledger_roots_seal(now=later(2))
    for statement in (
        "UPDATE wagering_ledgerroot SET merkle_root = repeat('0', 64)",
        "DELETE FROM wagering_ledgerroot",
        "TRUNCATE wagering_ledgerroot CASCADE",
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)
    assert LedgerRoot.objects.get().merkle_root == root.merkle_root


@postgres_only
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_sealers_at_once_seal_each_hour_once():
    some_money_moved()
    ledger_roots.ledger_roots_seal(now=later(2))
    now, results, errors = later(5), [], []
    barrier = threading.Barrier(4)

    def seal() -> None:
        try:
            barrier.wait()
            results.append(ledger_roots.ledger_roots_seal(now=now))
        except Exception as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=seal) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    hours = sorted(root.hour for sealed in results for root in sealed)
    assert len(hours) == len(set(hours)) == 3  # the three hours due, each once
    assert LedgerRoot.objects.count() == 4 and AuditLog.objects.filter(action="ledger_root_sealed").count() == 4
    assert "4 sealed hours verified" in verify()


@postgres_only
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_row_committed_after_its_hour_ended_waits_for_the_seal(monkeypatch):
    """A transaction open when its hour is due holds ids the hour's range may cover: sealing waits for it
    (here: gives up, deferred to the next run), then its row is in the hour, not lost between two."""
    monkeypatch.setattr(ledger_roots, "OPEN_TRANSACTIONS_WAIT_SECONDS", 0.5)
    some_money_moved()
    inserted, release = threading.Event(), threading.Event()

    def slow_deposit() -> None:
        try:
            with transaction.atomic():
                fund(UserFactory(), "77.00")
                inserted.set()
                release.wait(10)
        finally:
            connection.close()

    writer = threading.Thread(target=slow_deposit)
    writer.start()
    assert inserted.wait(10)
    now = later(2)
    assert ledger_roots.ledger_roots_seal(now=now) == []  # deferred: the deposit's transaction is open
    release.set()
    writer.join()
    (root,) = ledger_roots.ledger_roots_seal(now=now)
    assert root.transactions_last_id == LedgerTransaction.objects.filter(entries__amount=77).get().pk
    assert "1 sealed hour verified" in verify()
