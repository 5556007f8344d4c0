"""The webhook task: POST one signed event, retried with exponential backoff (its own ``webhooks`` queue);
the wallet tasks: a seamless wallet's credit, rollback or correction's debit, sent until acknowledged
(the ``wallet`` queue), and the sweep that sends again what is due.

Its name stays ``wagering.tasks.webhook_delivery_send``, from before the partners app: deliveries queued
before an upgrade still run after it.
"""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from partners import deliveries, reconciliation, wallet_sending, webhook_http
from partners.models import Partner

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


# Just above a wallet call's deadline.
WALLET_LIMITS = {
    "soft_time_limit": wallet_sending.ATTEMPT_SECONDS + 5,
    "time_limit": wallet_sending.ATTEMPT_SECONDS + 10,
}


@shared_task(
    name="partners.tasks.wallet_transaction_send", bind=True, acks_late=True, max_retries=None, **WALLET_LIMITS
)
def wallet_transaction_send(self, pk: int) -> None:
    """Send a credit, rollback or correction's debit to the partner's wallet, again until acknowledged.
    Run eagerly (the embedded default), a failed attempt is left to the sweep: an eager retry would loop."""
    if not wallet_sending.wallet_transaction_attempt(pk=pk) and not self.request.is_eager:
        raise self.retry(countdown=wallet_sending.retry_delay_seconds(self.request.retries + 1))


@shared_task(name="partners.tasks.wallet_transactions_resend")
def wallet_transactions_resend() -> int:
    """The sweep (Celery beat, every minute): what is due and was not sent, or whose worker died, again."""
    due = wallet_sending.wallet_transactions_due()
    for pk in due:
        wallet_transaction_send.delay(pk)
    return len(due)


@shared_task(name="partners.tasks.reconciliation_report_build")
def reconciliation_report_build(days_ago: int = 1) -> int:
    """Each seamless partner's reconciliation report of that UTC day (Celery beat: yesterday's, after midnight)."""
    day = timezone.now().date() - timedelta(days=days_ago)
    partners = Partner.objects.filter(wallet_transactions__isnull=False).distinct()
    for partner in partners:
        reconciliation.reconciliation_report_build(partner=partner, day=day)
    return len(partners)
