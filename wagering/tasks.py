"""Celery tasks: each only calls a service (settlement, game-history reports, webhook deliveries)."""

from __future__ import annotations

from datetime import date, timedelta

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone

from wagering import services, webhooks

RETRYING = {
    "acks_late": True,
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 10,
}


@shared_task(**RETRYING)
def coup_settle(coup_id: int) -> None:
    """Settle a resolved coup; enqueued on commit by the table services. Idempotent."""
    services.coup_settle(coup_id=coup_id)


@shared_task(**RETRYING)
def table_day_report_build(table_id: int, day_iso: str) -> None:
    services.table_day_report_build(table_id=table_id, day=date.fromisoformat(day_iso))


@shared_task(**RETRYING)
def shoe_report_build(shoe_id: int) -> None:
    services.shoe_report_build(shoe_id=shoe_id)


@shared_task(**RETRYING)
def day_reports_build(day_iso: str | None = None, days_ago: int = 0) -> None:
    """Every table's and shoe's report for a day: ``day_iso``, else today (UTC) minus ``days_ago``."""
    day = date.fromisoformat(day_iso) if day_iso else timezone.now().date() - timedelta(days=days_ago)
    services.day_reports_build(day=day)


@shared_task(bind=True, acks_late=True, max_retries=webhooks.WEBHOOK_ATTEMPTS - 1)
def webhook_delivery_send(self, delivery_id: int) -> None:
    """POST one signed webhook event; enqueued on commit. A failed attempt is retried with exponential backoff."""
    final = self.request.retries >= self.max_retries
    done = webhooks.webhook_delivery_attempt(delivery_id=delivery_id, final=final)
    if not done and not final:
        raise self.retry(countdown=webhooks.webhook_retry_delay(self.request.retries))
