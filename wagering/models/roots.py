"""The ledger's hourly roots: each hour's ledger transactions, their legs and audit rows hashed into a Merkle
root chained to the hour before (``wagering.ledger_roots``, ``docs/ledger-roots.md``). Append-only: a
PostgreSQL trigger refuses UPDATE, DELETE and TRUNCATE (migration 0020)."""

from __future__ import annotations

from django.db import models


class LedgerRoot(models.Model):
    """One sealed hour: which rows it covers (id ranges), their Merkle root, and the chained root.

    ``leaf_digests`` only locates a changed row (``ledger_verify``); the ``root`` published to the audit log
    and to partners is what detects one."""

    hour = models.DateTimeField(unique=True, help_text="the hour's start (UTC)")
    # The rows of the hour: ids after the previous hour's last, up to these (inclusive).
    transactions_after_id = models.BigIntegerField()
    transactions_last_id = models.BigIntegerField()
    audit_after_id = models.BigIntegerField()
    audit_last_id = models.BigIntegerField()
    leaf_count = models.PositiveIntegerField()
    merkle_root = models.CharField(max_length=64, help_text="SHA-256, hex: the hour's rows")
    previous_root = models.CharField(max_length=64, help_text="the hour before's root (zeros for the first)")
    root = models.CharField(max_length=64, unique=True, help_text="SHA-256, hex: chained to the previous root")
    # Per leaf, 17 bytes: its table (1 byte), its id (8) and its digest's first 8 bytes.
    leaf_digests = models.BinaryField()
    sealed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-hour"]

    def __str__(self) -> str:
        return f"{self.hour:%Y-%m-%d %H:00} {self.root[:16]}"
