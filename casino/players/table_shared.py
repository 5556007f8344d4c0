"""What the sockets of a process share of a table between its events (``kernel.table_broadcast``): its public
snapshot, its live coup and the stakes on it in every currency, read once for all of them. A reconnect storm
then costs each socket only its viewer's own part (their currency, protection, the hands they show)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from roadmaps.selectors import table_snapshot_read
from tables.models import Coup
from wagering.selectors import coup_stake_totals_and_bettors


@dataclass(frozen=True)
class TableShared:
    """Read-only: it is every socket's. The stakes as of the table's last event this process read; a bet since
    sends its ``bet_totals`` event, which each socket of the table receives after its snapshot."""

    snapshot: dict
    live_coup: Coup | None  # None: no coup in progress
    stake_totals: dict[str, dict[str, Decimal]] = field(default_factory=dict)  # by currency and bet type
    bettors: dict[str, dict[str, int]] = field(default_factory=dict)  # by currency and bet type


def table_shared_read(*, code: str) -> TableShared | None:
    """The table ``code`` (None: no such table) read afresh."""
    read = table_snapshot_read(code=code)
    if read is None:
        return None
    snapshot, live = read
    if live is None:
        return TableShared(snapshot=snapshot, live_coup=None)
    totals, bettors = coup_stake_totals_and_bettors(coup=live)
    return TableShared(snapshot=snapshot, live_coup=live, stake_totals=dict(totals), bettors=dict(bettors))
