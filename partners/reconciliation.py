"""Reconciliation of seamless wallets: each day's wallet transactions of a partner with their amounts and
states, and the day's sums (stakes debited, returns credited, rollbacks, what is not yet acknowledged).

The sum check, per player: what the partner's wallet should have moved is minus the debits acknowledged
plus the credits and rollbacks acknowledged. Amounts are in the partner's currency, never added across
currencies (each transaction carries its own; a report sums one currency).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import QuerySet

from kernel.money import ZERO, money
from partners.models import Partner, ReconciliationReport, WalletTransaction

ACKNOWLEDGED = WalletTransaction.State.ACKNOWLEDGED
PENDING = WalletTransaction.State.PENDING


def day_bounds(day: date) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time.min, tzinfo=UTC)
    return start, start + timedelta(days=1)


def reconciliation_transactions(*, partner: Partner, day: date) -> QuerySet[WalletTransaction]:
    """The partner's wallet transactions created that UTC day, oldest first."""
    start, end = day_bounds(day)
    found = WalletTransaction.objects.filter(partner=partner, created_at__gte=start, created_at__lt=end)
    return found.select_related("player", "coup", "rolls_back").order_by("created_at", "pk")


def reconciliation_summary(*, partner: Partner, day: date) -> dict:
    """The day's sums by kind and state, and the expected change of each player's balance at the partner."""
    sums: dict[tuple[str, str], Decimal] = defaultdict(lambda: ZERO)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    by_player: dict[str, Decimal] = defaultdict(lambda: ZERO)
    rows = reconciliation_transactions(partner=partner, day=day).values_list(
        "kind", "state", "amount", "player__external_id"
    )
    for kind, state, amount, player_id in rows:
        sums[kind, state] += amount
        counts[kind, state] += 1
        if state == ACKNOWLEDGED:
            by_player[player_id] += -amount if kind == WalletTransaction.Kind.DEBIT else amount

    def total(kind: str, state: str = ACKNOWLEDGED) -> str:
        return str(money(sums[kind, state]))

    unacknowledged = [
        {"kind": kind, "count": counts[kind, state], "amount": str(money(sums[kind, state]))}
        for kind, state in sorted(counts)
        if state == PENDING
    ]
    return {
        "date": day.isoformat(),
        "currency": partner.currency,
        "stakes": total(WalletTransaction.Kind.DEBIT),
        "returns": total(WalletTransaction.Kind.CREDIT),
        "rollbacks": total(WalletTransaction.Kind.ROLLBACK),
        "refused_debits": total(WalletTransaction.Kind.DEBIT, WalletTransaction.State.REFUSED),
        "failed_debits": total(WalletTransaction.Kind.DEBIT, WalletTransaction.State.FAILED),
        "unacknowledged": unacknowledged,
        "transactions": sum(counts.values()),
        "players": [
            {"player_id": player_id, "balance_change": str(money(change))}
            for player_id, change in sorted(by_player.items())
        ],
    }


@transaction.atomic
def reconciliation_report_build(*, partner: Partner, day: date) -> ReconciliationReport:
    """The partner's report of the day, written (again) from its transactions."""
    report, _ = ReconciliationReport.objects.update_or_create(
        partner=partner, day=day, defaults={"summary": reconciliation_summary(partner=partner, day=day)}
    )
    return report
