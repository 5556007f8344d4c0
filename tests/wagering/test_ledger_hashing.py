"""The ledger roots' hashing as an auditor recomputes it: a row's canonical bytes, RFC 6962's tree (its
published test vectors), the chain."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

from wagering.ledger_hashing import (
    AUDIT,
    ENTRIES,
    TRANSACTIONS,
    chained_root,
    leaf_record,
    leaf_records,
    merkle_root,
    row_bytes,
)

# Certificate Transparency's test leaves and the roots of their first 1..8 (RFC 6962's reference tests).
CT_LEAVES = [b"", b"\x00", b"\x10", b"\x20\x21", b"\x30\x31", b"\x40\x41\x42\x43", bytes(range(0x50, 0x58))]
CT_LEAVES.append(bytes(range(0x60, 0x70)))
CT_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def test_the_tree_is_rfc_6962s():
    leaves = [hashlib.sha256(b"\x00" + leaf).digest() for leaf in CT_LEAVES]
    assert [merkle_root(leaves[:n]).hex() for n in range(1, 9)] == CT_ROOTS
    assert merkle_root([]).hex() == hashlib.sha256(b"").hexdigest()


def test_a_rows_canonical_bytes():
    paris = timezone(timedelta(hours=1))
    transaction = {
        "id": 7,
        "kind": "deposit",
        "currency": "EUR",
        "coup_id": None,
        "actor_id": 3,
        "reason": "café",
        "created_at": datetime(2026, 11, 24, 11, 5, 0, tzinfo=paris),
    }
    assert row_bytes(TRANSACTIONS, transaction) == (
        b'["wagering_ledgertransaction",7,"deposit","EUR",null,3,"caf\\u00e9","2026-11-24T10:05:00.000000Z"]'
    )
    leg = {
        "id": 12,
        "transaction_id": 7,
        "account_id": 2,
        "amount": Decimal("-100.5"),
        "balance_before": Decimal("0"),
        "balance_after": Decimal("-100.50"),
    }
    assert row_bytes(ENTRIES, leg) == b'["wagering_ledgerentry",12,7,2,"-100.50","0.00","-100.50"]'
    audit = dict.fromkeys(("actor_id", "table_id", "before"))
    audit |= {"id": 5, "actor_label": "boss", "action": "coup_voided", "object_type": "Coup", "object_id": "9"}
    audit |= {"after": {"b": [1, 2.5], "a": "x"}, "reason": "", "created_at": datetime(2026, 1, 2, tzinfo=paris)}
    assert row_bytes(AUDIT, audit) == (
        b'["tables_auditlog",5,null,"boss","coup_voided",null,"Coup","9",null,{"a":"x","b":[1,2.5]},"",'
        b'"2026-01-01T23:00:00.000000Z"]'
    )


def test_the_chain_and_the_stored_leaf_records():
    hour = datetime(2026, 11, 24, 10, tzinfo=UTC)
    expected = hashlib.sha256(f"punto-ledger-root-v1:2026-11-24T10:00:00Z:{'0' * 64}:{'ab' * 32}".encode())
    assert chained_root(hour=hour, previous_root="0" * 64, merkle_root_hex="ab" * 32) == expected.hexdigest()
    digest = hashlib.sha256(b"leaf").digest()
    blob = leaf_record(ENTRIES, 2**40 + 3, digest) + leaf_record(AUDIT, 1, digest)
    assert len(blob) == 34
    assert list(leaf_records(blob)) == [(ENTRIES, 2**40 + 3, digest[:8]), (AUDIT, 1, digest[:8])]
