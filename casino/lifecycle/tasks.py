"""The lifecycle's Celery task: settle a resolved coup (its own ``settlement`` queue and workers); and the
beat's jobs that compose wagering with the partners' webhooks: the hourly sealing of the ledger's roots, and
every minute the play sessions whose limit passed.

The tasks keep the names they were queued under before the lifecycle moved here (``wagering.tasks.coup_settle``,
``casino.tasks.ledger_roots_seal``): tasks queued before an upgrade still run after it.
"""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import OperationalError

from casino.lifecycle.settlement import coup_settle
from partners.ledger_roots import ledger_roots_seal_and_publish
from partners.player_events import player_sessions_ended_tell
from tables.private_coups import private_shoe_idle_close, private_shoes_idle
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


@shared_task(name="casino.tasks.play_sessions_ended_tell", **RETRYING)
def play_sessions_ended_tell() -> int:
    """Celery beat, every minute: the play sessions whose limit passed, ended on the players' pages and told to
    their partners (``player.session_limit_reached``), once each."""
    return player_sessions_ended_tell()


@shared_task(name="casino.tasks.rng_idle_shoes_close", **RETRYING)
def rng_idle_shoes_close() -> int:
    """Celery beat: the private shoes of tables dealt on demand left idle for ``RNG_SHOE_IDLE_MINUTES``, finished
    and so revealed (issue 30). How many."""
    idle_for = timedelta(minutes=settings.RNG_SHOE_IDLE_MINUTES)
    idle = private_shoes_idle(idle_for=idle_for)
    return sum(private_shoe_idle_close(shoe_id=shoe_id, idle_for=idle_for) for shoe_id in idle)
