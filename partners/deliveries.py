"""Delivering a webhook event: one signed POST per attempt, recorded on the delivery, retried with
exponential backoff by the Celery task (``partners.tasks``), ``WEBHOOK_ATTEMPTS`` attempts in all.
Writing the events and queueing them is ``partners.webhooks``."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import time

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.utils import timezone

from kernel.encryption import decrypt
from kernel.metrics import webhook_failure_count
from partners.models import WebhookDelivery
from partners.webhook_http import webhook_post

SIGNATURE_HEADER = "Punto-Signature"
WEBHOOK_ATTEMPTS = 8
RETRY_BASE_SECONDS = 30  # then 60, 120, ... up to RETRY_MAX_SECONDS: about an hour over the 8 attempts
RETRY_MAX_SECONDS = 30 * 60


def webhook_signature(*, secret: str, timestamp: int, body: bytes) -> str:
    """The ``Punto-Signature`` header of a request body."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def webhook_retry_delay(retries: int) -> int:
    """Seconds before the next attempt after ``retries`` retries: doubling, capped, with up to 25% jitter."""
    delay = min(RETRY_BASE_SECONDS * 2**retries, RETRY_MAX_SECONDS)
    return delay + random.randint(0, delay // 4)


def webhook_delivery_attempt(*, delivery_id: int, final: bool) -> bool:
    """POST the event, signed, and record how it went. True when there is nothing more to try:
    delivered (2xx), or no longer pending. A failure on the ``final`` attempt marks it failed."""
    delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    if delivery.status != WebhookDelivery.Status.PENDING:
        return True
    if not delivery.endpoint.is_active:
        _attempt_record(delivery_id=delivery_id, status_code=None, error="the endpoint was deleted", final=True)
        return True
    body = json.dumps(delivery.payload, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Punto-Webhooks/1",
        "Punto-Event-Id": str(delivery.event_id),
        "Punto-Event-Type": delivery.event_type,
        SIGNATURE_HEADER: webhook_signature(
            secret=decrypt(delivery.endpoint.secret_encrypted), timestamp=int(time.time()), body=body
        ),
    }
    try:
        status_code, error = webhook_post(url=delivery.endpoint.url, body=body, headers=headers)
    except SoftTimeLimitExceeded:  # the task's soft limit (a name slow to resolve): a failed attempt
        status_code, error = None, "the attempt overran the task's time limit"
    return _attempt_record(delivery_id=delivery_id, status_code=status_code, error=error, final=final)


@transaction.atomic
def _attempt_record(*, delivery_id: int, status_code: int | None, error: str, final: bool) -> bool:
    """Record an attempt (an empty ``error`` means delivered); True when there is nothing more to try."""
    delivery = WebhookDelivery.objects.select_for_update(of=("self",)).get(pk=delivery_id)
    if delivery.status != WebhookDelivery.Status.PENDING:  # a concurrent attempt finished it
        return True
    delivered = not error
    now = timezone.now()
    delivery.attempts += 1
    delivery.last_status_code, delivery.last_error, delivery.last_attempt_at = status_code, error, now
    if delivered:
        delivery.status, delivery.delivered_at = WebhookDelivery.Status.DELIVERED, now
    else:
        webhook_failure_count(partner=delivery.endpoint.partner.code)
    if not delivered and final:
        delivery.status = WebhookDelivery.Status.FAILED
    delivery.save()
    return delivered
