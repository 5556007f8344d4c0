"""The lifecycle's Celery task: settle a resolved coup (its own ``settlement`` queue and workers); and the
hourly sealing of the ledger's roots, which composes wagering's roots with the partners' webhooks.

The tasks keep the names they were queued under before the lifecycle moved here (``wagering.tasks.coup_settle``,
``casino.tasks.ledger_roots_seal``): tasks queued before an upgrade still run after it.
"""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import OperationalError

from casino.lifecycle.settlement import coup_settle
from partners.ledger_roots import ledger_roots_seal_and_publish
from wagering.tasks import REPORT_LIMITS, RETRYING

# A settlement is one transaction: a soft limit rolls it back whole and the task is retried (it is
# idempotent). Past the hard limit the pool child is killed, its connection (and transaction) with it;
# the table loop sends a coup left resolved again after 30 s (casino.lifecycle.loop).
SETTLEMENT_LIMITS = {"soft_time_limit": 30, "time_limit": 45}


@shared_task(
    name="wagering.tasks.coup_settle",
    **{**RETRYING, "autoretry_for": (OperationalError, SoftTimeLimitExceeded)},
    **SETTLEMENT_LIMITS,
)
def coup_settle_task(coup_id: int) -> None:
    """Settle a resolved coup; enqueued on commit by ``casino.lifecycle.coup_resolve``. Idempotent."""
    coup_settle(coup_id=coup_id)


@shared_task(name="casino.tasks.ledger_roots_seal", **RETRYING, **REPORT_LIMITS)
def ledger_roots_seal() -> int:
    """Seal the ledger's hours that are due and send their roots to the partners (Celery beat, hourly)."""
    return len(ledger_roots_seal_and_publish())
