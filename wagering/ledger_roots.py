"""The ledger's hourly roots (``docs/ledger-roots.md``): every hour, the ledger transactions with their legs
and the audit rows written in it are hashed into a Merkle root (``wagering.ledger_hashing``), chained to the
hour before's root, kept in an append-only table (``LedgerRoot``) and written to the audit log; partners
receive it as a ``ledger.hourly_root`` webhook (composed in ``partners.ledger_roots``). Nothing of it runs
on the bet path: a Celery beat job seals the hours that are due.

**Which hour a row belongs to: id ranges, fixed at sealing.** Hour H ``[start, end)`` is sealed once
``now >= end + SEAL_MARGIN``. Its ledger transactions are the ids after the previous hour's last, up to
the largest id of a transaction created before ``end`` (then, the same for audit rows); a transaction's
legs belong to it. A row's ``created_at`` only chooses where a range ends: a row is in exactly one hour,
the one whose range holds its id. Ids are drawn when a row is inserted, and its transaction may commit
later: a row that commits after its hour was sealed must not escape. So, once the ranges' ends are read,
sealing waits (on PostgreSQL) until no client transaction that began before that moment is still open: every
id up to a range's end was drawn before the row at its end committed, so by a transaction begun before then;
its row has committed (or rolled back, leaving a gap that stays a gap). A row that commits later has a larger
id: the next hour's range takes it. This holds whatever ``created_at`` a client writes (it only moves a row to
a neighbouring hour; each sealing's own audit row, created after the hour, carries the next range past it).
Ids and roots themselves are checked by the database (wagering/0022): a row takes the id its sequence drew, a
root follows the newest by an hour that has ended. On SQLite the sealer's transaction holds the database's
write lock: no other write is open. The application's hosts keep time (NTP) well within the margin.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from tables.audit import audit_record
from tables.models import AuditLog
from wagering.ledger_hashing import (
    AUDIT,
    ENTRIES,
    GENESIS,
    ROW_FIELDS,
    SCHEME,
    TRANSACTIONS,
    MerkleTree,
    chained_root,
    hour_text,
    leaf_hash,
    leaf_record,
)
from wagering.models import LedgerEntry, LedgerRoot, LedgerTransaction

logger = logging.getLogger(__name__)

HOUR = timedelta(hours=1)
SEAL_MARGIN = timedelta(minutes=5)
OPEN_TRANSACTIONS_WAIT_SECONDS = 10.0  # then the hour waits for the next run
SEAL_LOCK = 0x6C65_6467_6572  # the PostgreSQL advisory lock of the sealers ("ledger")
CHUNK = 2000
ACTOR_LABEL = "ledger-roots"
ROOT_SEALED = "ledger_root_sealed"


@dataclass(frozen=True)
class HourRows:
    """The id ranges of an hour's rows: after ``*_after_id``, up to ``*_last_id`` (inclusive)."""

    transactions_after_id: int
    transactions_last_id: int
    audit_after_id: int
    audit_last_id: int


def hour_rows(root: LedgerRoot) -> HourRows:
    return HourRows(root.transactions_after_id, root.transactions_last_id, root.audit_after_id, root.audit_last_id)


def hour_leaves(rows: HourRows) -> Iterator[tuple[str, int, bytes]]:
    """(table, id, leaf hash) of the hour's rows, in the tree's order: each transaction then its legs, by id;
    then the audit rows by id. Read in chunks: an hour may hold millions of rows."""
    after = rows.transactions_after_id
    while True:
        chunk = list(
            LedgerTransaction.objects.filter(id__gt=after, id__lte=rows.transactions_last_id)
            .order_by("id")
            .values("id", *ROW_FIELDS[TRANSACTIONS])[:CHUNK]
        )
        if not chunk:
            break
        entries = (
            LedgerEntry.objects.filter(transaction_id__gt=after, transaction_id__lte=chunk[-1]["id"])
            .order_by("transaction_id", "id")
            .values("id", *ROW_FIELDS[ENTRIES])
        )
        legs: dict[int, list[dict]] = {}
        for entry in entries:
            legs.setdefault(entry["transaction_id"], []).append(entry)
        for row in chunk:
            yield TRANSACTIONS, row["id"], leaf_hash(TRANSACTIONS, row)
            for entry in legs.get(row["id"], ()):
                yield ENTRIES, entry["id"], leaf_hash(ENTRIES, entry)
        after = chunk[-1]["id"]
    after = rows.audit_after_id
    while True:
        chunk = list(
            AuditLog.objects.filter(id__gt=after, id__lte=rows.audit_last_id)
            .order_by("id")
            .values("id", *ROW_FIELDS[AUDIT])[:CHUNK]
        )
        if not chunk:
            break
        for row in chunk:
            yield AUDIT, row["id"], leaf_hash(AUDIT, row)
        after = chunk[-1]["id"]


@dataclass(frozen=True)
class HourHash:
    merkle_root: str
    leaf_count: int
    leaf_digests: bytes


def hour_hash(rows: HourRows) -> HourHash:
    tree, records = MerkleTree(), bytearray()
    for table, row_id, leaf in hour_leaves(rows):
        tree.add(leaf)
        records += leaf_record(table, row_id, leaf)
    return HourHash(tree.root().hex(), tree.count, bytes(records))


# --- Sealing -------------------------------------------------------------------------------------


def hour_start(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def _last_id(model, *, after_id: int, before: datetime) -> int:
    """The largest id after ``after_id`` of a row created before ``before`` (``after_id`` if none)."""
    found = model.objects.filter(id__gt=after_id, created_at__lt=before).aggregate(last=Max("id"))["last"]
    return found if found is not None else after_id


# Client sessions only: autovacuum, WAL senders and other background processes hold no ids of these rows (a
# parallel worker's leader is a client backend). A session whose transaction the sealer's role may not see
# (another role's, without pg_read_all_stats: scripts/services.sh grants it) has a NULL backend_type: not
# waited for, but reported (see docs/ledger-roots.md: a row it commits late is flagged, not hidden).
OPEN_TRANSACTIONS = """
SELECT count(*) FILTER (WHERE backend_type = 'client backend' AND xact_start < %s),
       count(*) FILTER (WHERE backend_type IS NULL)
FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
"""


def _older_transactions_ended() -> bool:
    """Whether every other client transaction on the database that began before now has ended (waiting up to
    ``OPEN_TRANSACTIONS_WAIT_SECONDS``). SQLite: the sealer holds the write lock already."""
    if connection.vendor != "postgresql":
        return True
    deadline = time.monotonic() + OPEN_TRANSACTIONS_WAIT_SECONDS
    with connection.cursor() as cursor:
        cursor.execute("SELECT clock_timestamp()")
        (cutoff,) = cursor.fetchone()
    while True:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_stat_clear_snapshot()")  # else a transaction sees its first look again
            cursor.execute(OPEN_TRANSACTIONS, [cutoff])
            open_transactions, unseen = cursor.fetchone()
        if open_transactions == 0:
            if unseen:
                logger.warning(
                    "ledger root: %s sessions' transactions are not visible to this role (grant it"
                    " pg_read_all_stats); sealed without waiting for them",
                    unseen,
                )
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.5)


def _sealing_lock_taken() -> bool:
    """One sealer at a time (PostgreSQL: an advisory lock, not waited for: the holder seals what is due;
    SQLite: the transaction's write lock). ``hour`` is unique besides."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [SEAL_LOCK])
        return cursor.fetchone()[0]


def ledger_root_seal_next(
    *, now: datetime | None = None, on_sealed: Callable[[LedgerRoot], None] | None = None
) -> LedgerRoot | None:
    """Seal the hour after the newest sealed one if it is due (the first time: the last complete hour,
    holding every row before it), in one transaction with its audit row and ``on_sealed`` (the partners'
    webhooks). None: nothing due, another sealer at work, or a transaction of the hour still open."""
    now = now or timezone.now()
    with transaction.atomic():
        if not _sealing_lock_taken():
            return None
        previous = LedgerRoot.objects.order_by("-hour").first()
        hour = previous.hour + HOUR if previous else hour_start(now - SEAL_MARGIN) - HOUR
        end = hour + HOUR
        if now < end + SEAL_MARGIN:
            return None
        transactions_after = previous.transactions_last_id if previous else 0
        audit_after = previous.audit_last_id if previous else 0
        rows = HourRows(
            transactions_after_id=transactions_after,
            transactions_last_id=_last_id(LedgerTransaction, after_id=transactions_after, before=end),
            audit_after_id=audit_after,
            audit_last_id=_last_id(AuditLog, after_id=audit_after, before=end),
        )
        if not _older_transactions_ended():
            logger.warning("ledger root of %s deferred: a transaction that may hold its ids is still open", hour)
            return None
        hashed = hour_hash(rows)
        previous_root = previous.root if previous else GENESIS
        root = LedgerRoot.objects.create(
            hour=hour,
            **asdict(rows),
            leaf_count=hashed.leaf_count,
            merkle_root=hashed.merkle_root,
            previous_root=previous_root,
            root=chained_root(hour=hour, previous_root=previous_root, merkle_root_hex=hashed.merkle_root),
            leaf_digests=hashed.leaf_digests,
        )
        audit_record(action=ROOT_SEALED, actor_label=ACTOR_LABEL, obj=root, after=root_published(root))
        if on_sealed is not None:
            on_sealed(root)
        return root


def ledger_roots_seal(
    *, now: datetime | None = None, on_sealed: Callable[[LedgerRoot], None] | None = None, limit: int = 48
) -> list[LedgerRoot]:
    """Seal every hour that is due, oldest first, each in its own transaction (a worker back after three
    hours seals the three in order; idempotent: a sealed hour is not sealed again). At most ``limit`` a
    call: the next run goes on."""
    sealed: list[LedgerRoot] = []
    while len(sealed) < limit and (root := ledger_root_seal_next(now=now, on_sealed=on_sealed)) is not None:
        sealed.append(root)
    return sealed


def root_published(root: LedgerRoot) -> dict:
    """What the audit log and the partners receive of a sealed hour."""
    return {
        "scheme": SCHEME,
        "hour": hour_text(root.hour),
        "merkle_root": root.merkle_root,
        "previous_root": root.previous_root,
        "root": root.root,
        "leaves": root.leaf_count,
        "ledger_transactions": {"after_id": root.transactions_after_id, "last_id": root.transactions_last_id},
        "audit_rows": {"after_id": root.audit_after_id, "last_id": root.audit_last_id},
    }
