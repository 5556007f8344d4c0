"""Celery tasks: each only calls a service (settlement, game-history reports, webhook deliveries).

Each queue has workers of its own (``CELERY_TASK_ROUTES``, the ``Procfile``): settlement, webhooks and
reports never wait for one another. Every task has a soft and a hard time limit that fit its work.
"""

from __future__ import annotations

from datetime import date, timedelta

from celery import shared_task
from django.conf import settings
from django.db import OperationalError
from django.utils import timezone

from wagering import idempotency, reports

RETRYING = {
    "acks_late": True,
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 10,
}
REPORT_LIMITS = {"soft_time_limit": 300, "time_limit": 360}


@shared_task(**RETRYING, **REPORT_LIMITS)
def table_day_report_build(table_id: int, day_iso: str) -> None:
    reports.table_day_report_build(table_id=table_id, day=date.fromisoformat(day_iso))


@shared_task(**RETRYING, **REPORT_LIMITS)
def shoe_report_build(shoe_id: int) -> None:
    reports.shoe_report_build(shoe_id=shoe_id)


@shared_task(**RETRYING, **REPORT_LIMITS)
def day_reports_build(day_iso: str | None = None, days_ago: int = 0) -> None:
    """Every table's and shoe's report for a day: ``day_iso``, else today (UTC) minus ``days_ago``."""
    day = date.fromisoformat(day_iso) if day_iso else timezone.now().date() - timedelta(days=days_ago)
    reports.day_reports_build(day=day)


@shared_task(**RETRYING, **REPORT_LIMITS)
def bet_requests_prune() -> int:
    """The players' bet requests past ``BET_REQUEST_RETENTION_HOURS``, forgotten."""
    return idempotency.bet_requests_prune(older_than=timedelta(hours=settings.BET_REQUEST_RETENTION_HOURS))
