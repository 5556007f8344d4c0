"""The ``ledger.hourly_root`` event: each sealed hour's root, signed, to the endpoints subscribed to it only."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from casino.lifecycle import tasks
from partners.ledger_roots import ledger_roots_seal_and_publish
from partners.models import WebhookDelivery, WebhookEndpoint
from partners.webhooks import webhook_endpoint_disable
from tests.partners.test_webhooks import Receiver, signature_ok
from tests.wagering.conftest import roots_clock_ahead  # noqa: F401
from wagering.models import LedgerRoot

# The hours sealed here end a few hours from now: the database's clock for the roots is moved ahead.
pytestmark = pytest.mark.usefixtures("roots_clock_ahead")


def test_each_sealed_hour_is_sent_signed_to_the_subscribed_endpoints_only(
    api, other_api, player, django_capture_on_commit_callbacks
):
    with Receiver([200]) as receiver:
        subscribed = api.post("/api/v1/webhooks/", {"url": receiver.url, "events": ["ledger.hourly_root"]}).json()
        other_api.post("/api/v1/webhooks/", {"url": receiver.url, "events": ["round.settled", "shoe.finished"]})
        gone = other_api.post("/api/v1/webhooks/", {"url": receiver.url, "events": ["ledger.hourly_root"]}).json()
        webhook_endpoint_disable(endpoint=WebhookEndpoint.objects.get(pk=gone["id"]))
        with django_capture_on_commit_callbacks(execute=True):
            sealed = ledger_roots_seal_and_publish(now=timezone.now() + timedelta(hours=2))
            sealed += ledger_roots_seal_and_publish(now=timezone.now() + timedelta(hours=3))
    assert len(sealed) == 2 and len(receiver.requests) == 2
    for root, (headers, body) in zip(sealed, receiver.requests, strict=True):
        assert signature_ok(subscribed["secret"], headers["Punto-Signature"], body)
        assert headers["Punto-Event-Type"] == "ledger.hourly_root"
        data = json.loads(body)["data"]
        assert (data["root"], data["merkle_root"], data["previous_root"]) == (
            root.root,
            root.merkle_root,
            root.previous_root,
        )
        assert data["hour"] == root.hour.strftime("%Y-%m-%dT%H:00:00Z") and data["leaves"] == root.leaf_count
    assert sealed[1].previous_root == sealed[0].root
    assert list(WebhookDelivery.objects.values_list("endpoint_id", "ledger_root_id").order_by("pk")) == [
        (subscribed["id"], root.pk) for root in sealed
    ]


def test_the_beat_task_seals_and_sends_once(api, player, django_capture_on_commit_callbacks):
    api.post("/api/v1/webhooks/", {"url": "http://127.0.0.1:9/never", "events": ["ledger.hourly_root"]})
    with django_capture_on_commit_callbacks(execute=False):
        assert tasks.ledger_roots_seal.delay().get() == 1  # the first: the last complete hour, with all before it
        assert tasks.ledger_roots_seal.delay().get() == 0
    assert LedgerRoot.objects.count() == 1 and WebhookDelivery.objects.get().ledger_root == LedgerRoot.objects.get()
