"""The ``ledger.hourly_root`` event: every sealed hour's root (``wagering.ledger_roots``) to each active
endpoint subscribed to it, written in the transaction that seals the hour (no event for an hour whose
sealing rolled back, none lost for one that committed) and sent once it commits, signed like every event.
A partner keeps the roots it receives: they are the copy of the ledger's history outside our database."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.utils import timezone

from partners.models import WebhookDelivery, WebhookEndpoint
from partners.webhooks import deliveries_send_on_commit, subscribed
from wagering.ledger_roots import ledger_roots_seal, root_published
from wagering.models import LedgerRoot

LEDGER_HOURLY_ROOT = WebhookDelivery.EventType.LEDGER_HOURLY_ROOT


def webhook_ledger_root_enqueue(*, root: LedgerRoot) -> list[WebhookDelivery]:
    """Write the event for every subscribed active endpoint, in the caller's transaction; sent on commit."""
    endpoints = subscribed(WebhookEndpoint.objects.filter(is_active=True).order_by("pk"), LEDGER_HOURLY_ROOT)
    deliveries = []
    for endpoint in endpoints:
        event_id = uuid.uuid4()
        payload = {
            "id": str(event_id),
            "type": LEDGER_HOURLY_ROOT,
            "created_at": timezone.now().isoformat(),
            "data": root_published(root),
        }
        deliveries.append(
            WebhookDelivery.objects.create(
                endpoint=endpoint, event_id=event_id, event_type=LEDGER_HOURLY_ROOT, ledger_root=root, payload=payload
            )
        )
    deliveries_send_on_commit([delivery.pk for delivery in deliveries])
    return deliveries


def ledger_roots_seal_and_publish(*, now: datetime | None = None) -> list[LedgerRoot]:
    """Seal every hour that is due, oldest first, each with its partners' events (Celery beat)."""
    return ledger_roots_seal(now=now, on_sealed=lambda root: webhook_ledger_root_enqueue(root=root))
