"""The ``shoe.finished`` event: when a shoe is finished (the cut card out) or discarded (cards replaced),
every partner endpoint subscribed to it gets the shoe's reveal, as ``GET /tables/{code}/shoes/{number}/``
answers it then (its card order, salt and the verification of every coup)."""

from __future__ import annotations

import json
import uuid

from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone

from partners.api.serializers import ShoeSerializer
from partners.models import WebhookDelivery, WebhookEndpoint
from partners.selectors.tables import shoe_fairness
from partners.webhooks import deliveries_send_on_commit, subscribed
from tables.models import Shoe

SHOE_FINISHED = WebhookDelivery.EventType.SHOE_FINISHED


def webhook_shoe_finished_enqueue(*, shoe: Shoe) -> list[WebhookDelivery]:
    """Write the event for every subscribed active endpoint, in the caller's transaction; sent on commit."""
    endpoints = subscribed(WebhookEndpoint.objects.filter(is_active=True).order_by("pk"), SHOE_FINISHED)
    if not endpoints:
        return []
    reveal = json.loads(json.dumps(ShoeSerializer(shoe_fairness(shoe=shoe)).data, cls=DjangoJSONEncoder))
    deliveries = []
    for endpoint in endpoints:
        event_id = uuid.uuid4()
        payload = {
            "id": str(event_id),
            "type": SHOE_FINISHED,
            "created_at": timezone.now().isoformat(),
            "data": {"table": shoe.table.code, "shoe": reveal},
        }
        deliveries.append(
            WebhookDelivery.objects.create(
                endpoint=endpoint, event_id=event_id, event_type=SHOE_FINISHED, shoe=shoe, payload=payload
            )
        )
    deliveries_send_on_commit([delivery.pk for delivery in deliveries])
    return deliveries
