"""The ledger roots' hashing, in one place so that an auditor can recompute it (``docs/ledger-roots.md``).

**A row's canonical bytes.** The JSON array ``[table, id, field, ...]`` of the fields in ``ROW_FIELDS``, in
that order, written as ``json.dumps(row, ensure_ascii=True, sort_keys=True, separators=(",", ":"))``
and encoded as ASCII: amounts as strings with exactly two decimal places (``"-100.00"``), timestamps as UTC
with microseconds (``"2026-11-24T10:05:00.123456Z"``), foreign keys as their ids, absent values as
``null``, the audit log's ``before``/``after`` JSON as the JSON values they hold (objects' keys sorted).

**The leaves.** An hour's rows in this order: each ledger transaction by id, each followed by its legs by id;
then the audit rows by id. A leaf's hash is ``SHA-256(0x00 || canonical bytes)``.

**The tree.** RFC 6962's Merkle tree hash (§2.1): one leaf is its leaf hash; n > 1 leaves split at the
largest power of two below n, the node ``SHA-256(0x01 || left || right)``; no leaves: ``SHA-256("")``.

**The chain.** ``root = SHA-256("punto-ledger-root-v1:<hour>:<previous root>:<merkle root>")``, the hour
as ``2026-11-24T10:00:00Z``, both roots in lowercase hex, the first hour's previous root 64 zeros.

Changing any of this changes every root after it: a new scheme gets a new name (``SCHEME``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from decimal import Decimal

SCHEME = "punto-ledger-root-v1"
GENESIS = "0" * 64
EMPTY_TREE = hashlib.sha256(b"").digest()

TRANSACTIONS, ENTRIES, AUDIT = "wagering_ledgertransaction", "wagering_ledgerentry", "tables_auditlog"
# Each table's hashed columns, in order (after the id).
ROW_FIELDS = {
    TRANSACTIONS: ("kind", "currency", "coup_id", "actor_id", "reason", "created_at"),
    ENTRIES: ("transaction_id", "account_id", "amount", "balance_before", "balance_after"),
    AUDIT: (
        "actor_id",
        "actor_label",
        "action",
        "table_id",
        "object_type",
        "object_id",
        "before",
        "after",
        "reason",
        "created_at",
    ),
}
# A leaf's table in the stored per-leaf digests (LedgerRoot.leaf_digests), one byte.
TABLE_TAGS = {TRANSACTIONS: b"T", ENTRIES: b"E", AUDIT: b"A"}
TAG_TABLES = {tag[0]: table for table, tag in TABLE_TAGS.items()}
DIGEST_PREFIX = 8
LEAF_RECORD = 1 + 8 + DIGEST_PREFIX  # table tag, id, digest prefix: bytes per row stored


def canonical_value(value: object) -> object:
    if isinstance(value, Decimal):
        return f"{value:.2f}"
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return value


def row_bytes(table: str, values: dict) -> bytes:
    """The canonical bytes of one row (``values``: its ``id`` and the ``ROW_FIELDS`` of its table)."""
    row = [table, values["id"], *(canonical_value(values[name]) for name in ROW_FIELDS[table])]
    return json.dumps(row, ensure_ascii=True, sort_keys=True, separators=(",", ":")).encode("ascii")


def leaf_hash(table: str, values: dict) -> bytes:
    return hashlib.sha256(b"\x00" + row_bytes(table, values)).digest()


def leaf_record(table: str, row_id: int, digest: bytes) -> bytes:
    return TABLE_TAGS[table] + row_id.to_bytes(8, "big", signed=True) + digest[:DIGEST_PREFIX]


def leaf_records(blob: bytes) -> Iterator[tuple[str, int, bytes]]:
    """The stored per-leaf digests, as (table, id, digest prefix)."""
    for start in range(0, len(blob), LEAF_RECORD):
        record = blob[start : start + LEAF_RECORD]
        yield TAG_TABLES[record[0]], int.from_bytes(record[1:9], "big", signed=True), record[9:]


class MerkleTree:
    """RFC 6962's tree hash of leaves added one by one, in O(log n) memory: complete subtrees of equal
    size merge as they form; ``root`` folds what is left from the right (the same as splitting at the
    largest power of two)."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, bytes]] = []  # (leaves, hash) of complete subtrees, largest first
        self.count = 0

    def add(self, leaf: bytes) -> None:
        self.count += 1
        size, node = 1, leaf
        while self._stack and self._stack[-1][0] == size:
            left = self._stack.pop()[1]
            size, node = size * 2, hashlib.sha256(b"\x01" + left + node).digest()
        self._stack.append((size, node))

    def root(self) -> bytes:
        if not self._stack:
            return EMPTY_TREE
        node = self._stack[-1][1]
        for _, left in reversed(self._stack[:-1]):
            node = hashlib.sha256(b"\x01" + left + node).digest()
        return node


def merkle_root(leaves: Iterable[bytes]) -> bytes:
    tree = MerkleTree()
    for leaf in leaves:
        tree.add(leaf)
    return tree.root()


def hour_text(hour: datetime) -> str:
    return hour.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def chained_root(*, hour: datetime, previous_root: str, merkle_root_hex: str) -> str:
    return hashlib.sha256(f"{SCHEME}:{hour_text(hour)}:{previous_root}:{merkle_root_hex}".encode()).hexdigest()
