"""Verify the sealed hours against the rows as they are now (``manage.py ledger_verify``): each hour's
Merkle root recomputed from its id ranges, the chain from root to root, and the audit log's copy of each
root. A root that no longer matches its rows names the first row that differs, found with the hour's
stored per-leaf digests (which only locate: the published roots are what detect)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tables.models import AuditLog
from wagering.ledger_hashing import AUDIT, GENESIS, TRANSACTIONS, chained_root, hour_text, leaf_records
from wagering.ledger_roots import HOUR, ROOT_SEALED, hour_hash, hour_rows
from wagering.models import LedgerRoot

ID_JUMP = 1_000_000


@dataclass(frozen=True)
class RowDifference:
    table: str
    id: int
    how: str  # changed, added (not sealed) or removed (sealed, gone)

    def __str__(self) -> str:
        return f"{self.table} {self.id} ({self.how})"


@dataclass(frozen=True)
class RootsVerification:
    hours: int
    problems: tuple[str, ...]
    first_row: RowDifference | None  # the first row that differs from what was sealed

    @property
    def ok(self) -> bool:
        return not self.problems


def first_row_difference(*, sealed: bytes, now: bytes) -> RowDifference | None:
    """The first leaf (in the tree's order) whose table, id or digest differs between the sealed per-leaf
    digests and the rows' now."""
    sealed_leaves, current_leaves = list(leaf_records(sealed)), list(leaf_records(now))
    for index in range(max(len(sealed_leaves), len(current_leaves))):
        was = sealed_leaves[index] if index < len(sealed_leaves) else None
        is_ = current_leaves[index] if index < len(current_leaves) else None
        if was == is_:
            continue
        if was is not None and is_ is not None and was[:2] == is_[:2]:
            return RowDifference(is_[0], is_[1], "changed")
        sealed_keys = {leaf[:2] for leaf in sealed_leaves}
        if is_ is not None and is_[:2] not in sealed_keys:
            return RowDifference(is_[0], is_[1], "added")
        return RowDifference(was[0], was[1], "removed")
    return None


def _id_jumps(root: LedgerRoot, leaf_digests: bytes) -> list[str]:
    """Ranges that span far more ids than they hold rows: ids are drawn one by one (a rollback leaves a few
    unused), so a jump of a million is an id written explicitly before wagering/0022 refused it."""
    rows = {TRANSACTIONS: 0, AUDIT: 0}
    for table, _, _ in leaf_records(leaf_digests):
        if table in rows:
            rows[table] += 1
    spans = {
        TRANSACTIONS: root.transactions_last_id - root.transactions_after_id,
        AUDIT: root.audit_last_id - root.audit_after_id,
    }
    return [
        f"{table}'s range spans {spans[table]} ids for {rows[table]} rows (an id written explicitly?)"
        for table in (TRANSACTIONS, AUDIT)
        if spans[table] - rows[table] > ID_JUMP
    ]


def ledger_roots_verify(*, start: datetime, end: datetime) -> RootsVerification:
    """The sealed hours starting in ``[start, end)``, recomputed and compared with their chain."""
    roots = list(LedgerRoot.objects.filter(hour__gte=start, hour__lt=end).order_by("hour"))
    previous = LedgerRoot.objects.filter(hour__lt=start).order_by("-hour").first()
    published: dict[str, list[str]] = {}  # a root's copies: exactly one, or the comparison depends on order
    for object_id, copy in AuditLog.objects.filter(
        action=ROOT_SEALED, object_type="LedgerRoot", object_id__in=[str(root.pk) for root in roots]
    ).values_list("object_id", "after__root"):
        published.setdefault(object_id, []).append(copy)
    problems: list[str] = []
    first_row = None
    for root in roots:
        hour = hour_text(root.hour)
        expected_previous = previous.root if previous else GENESIS
        if previous is not None and root.hour != previous.hour + HOUR:
            problems.append(f"{hour}: the hours after {hour_text(previous.hour)} up to it have no root")
        if root.previous_root != expected_previous:
            problems.append(f"{hour}: its previous root is not the root before it ({expected_previous})")
        if previous is not None and (root.transactions_after_id, root.audit_after_id) != (
            previous.transactions_last_id,
            previous.audit_last_id,
        ):
            problems.append(f"{hour}: its id ranges do not follow the hour before's")
        if (
            chained_root(hour=root.hour, previous_root=root.previous_root, merkle_root_hex=root.merkle_root)
            != root.root
        ):
            problems.append(f"{hour}: the stored root (LedgerRoot {root.pk}) does not chain its Merkle root")
        copies = published.get(str(root.pk), [])
        if len(copies) > 1:
            problems.append(f"{hour}: the audit log holds {len(copies)} copies of the root, not one")
        if any(copy != root.root for copy in copies) or not copies:
            problems.append(f"{hour}: the audit log's copy of the root differs from the stored one")
        hashed = hour_hash(hour_rows(root))
        problems.extend(f"{hour}: {jump}" for jump in _id_jumps(root, hashed.leaf_digests))
        if hashed.merkle_root != root.merkle_root:
            row = first_row_difference(sealed=bytes(root.leaf_digests), now=hashed.leaf_digests)
            where = f"first row that differs: {row}" if row else f"its rows match LedgerRoot {root.pk}'s digests"
            problems.append(f"{hour}: the rows hash to {hashed.merkle_root}, sealed {root.merkle_root}: {where}")
            first_row = first_row or row
        previous = root
    return RootsVerification(hours=len(roots), problems=tuple(problems), first_row=first_row)
