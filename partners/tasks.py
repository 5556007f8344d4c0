"""The webhook task: POST one signed event, retried with exponential backoff (its own ``webhooks`` queue).

Its name stays ``wagering.tasks.webhook_delivery_send``, from before the partners app: deliveries queued
before an upgrade still run after it.
"""

from __future__ import annotations

from celery import shared_task

from partners import deliveries, webhook_http

# Just above an attempt's own deadline (connect, TLS, request and answer).
WEBHOOK_LIMITS = {
    "soft_time_limit": webhook_http.ATTEMPT_DEADLINE_SECONDS + 5,
    "time_limit": webhook_http.ATTEMPT_DEADLINE_SECONDS + 10,
}


@shared_task(
    name="wagering.tasks.webhook_delivery_send",
    bind=True,
    acks_late=True,
    max_retries=deliveries.WEBHOOK_ATTEMPTS - 1,
    **WEBHOOK_LIMITS,
)
def webhook_delivery_send(self, delivery_id: int) -> None:
    """POST one signed webhook event; enqueued on commit. A failed attempt is retried with exponential backoff."""
    final = self.request.retries >= self.max_retries
    done = deliveries.webhook_delivery_attempt(delivery_id=delivery_id, final=final)
    if not done and not final:
        raise self.retry(countdown=deliveries.webhook_retry_delay(self.request.retries))
