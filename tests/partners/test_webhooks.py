"""Webhooks: endpoints by API, signed events on settlements and voids, retries with backoff, the admin."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.urls import reverse

from casino import lifecycle
from casino.lifecycle.settlement import coup_settle
from partners import deliveries, webhook_http, webhooks
from partners.models import WebhookDelivery, WebhookEndpoint
from tables.shoes import shoe_prepare, shoe_start
from tests.factories import TableFactory, UserFactory, coup_deal_and_resolve, staff_login
from tests.partners.conftest import idempotency_key, player_make

PLAYER_NATURAL_9 = "9S 2H KD 3C"


@pytest.fixture(autouse=True)
def eager_retries():
    """Eager Celery runs the retries at once (no backoff waits) when the task's exceptions do not propagate."""
    from casino import celery_app

    propagates = celery_app.conf.task_eager_propagates
    celery_app.conf.task_eager_propagates = False
    yield
    celery_app.conf.task_eager_propagates = propagates


class Receiver:
    """A partner's webhook endpoint on 127.0.0.1: answers each POST with the next status (the last one after)."""

    def __init__(self, statuses: list[int]) -> None:
        self.statuses = statuses
        self.requests: list[tuple[dict, bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((dict(self.headers), body))
                status = receiver.statuses[min(len(receiver.requests), len(receiver.statuses)) - 1]
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok" if status == 200 else b"try later")

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/punto?source=test"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def signature_ok(secret: str, header: str, body: bytes, tolerance: int = 300) -> bool:
    """What a partner does: recompute the HMAC of "<t>.<body>" and check the timestamp is recent."""
    fields = dict(item.split("=", 1) for item in header.split(","))
    expected = hmac.new(secret.encode(), f"{fields['t']}.".encode() + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields["v1"]) and abs(time.time() - int(fields["t"])) <= tolerance


def register(api, url) -> dict:
    response = api.post("/api/v1/webhooks/", {"url": url})
    assert response.status_code == 201
    return response.json()


def place(api, bets, player_id="p-1") -> None:
    response = api.post(f"/api/v1/players/{player_id}/bets/", {"table": "pb1", "bets": bets}, **idempotency_key())
    assert response.status_code == 201


def settle(coup) -> None:
    """Resolve and settle the coup and write its events, as the hook in settlement does (a second call adds
    nothing): call it inside ``django_capture_on_commit_callbacks(execute=True)`` to send them."""
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    coup_settle(coup_id=coup.pk)
    webhooks.webhook_events_enqueue(coup=coup, kind=webhooks.SETTLEMENT)


def void(coup) -> None:
    lifecycle.coup_void(coup=coup, actor=None, reason="dealing error")
    webhooks.webhook_events_enqueue(coup=coup, kind=webhooks.VOID)


# --- Endpoints -----------------------------------------------------------------------------------


def test_an_endpoint_is_registered_with_a_secret_shown_once(api, partner):
    created = register(api, "https://partner.example/hooks")
    assert created["secret"].startswith("whsec_") and created["url"] == "https://partner.example/hooks"
    listed = api.get("/api/v1/webhooks/").json()
    assert listed["results"] == [
        {
            "id": created["id"],
            "url": created["url"],
            # all, by default
            "events": [
                "round.settled",
                "round.voided",
                "round.corrected",
                "shoe.finished",
                "ledger.hourly_root",
                "player.session_limit_reached",
                "player.reality_check",
            ],
            "created_at": created["created_at"],
        }
    ]
    assert WebhookEndpoint.objects.get(pk=created["id"]).partner == partner


def test_an_endpoint_is_deleted_by_its_partner_only(api, other_api):
    created = register(api, "https://partner.example/hooks")
    assert other_api.delete(f"/api/v1/webhooks/{created['id']}/").status_code == 404
    assert other_api.get("/api/v1/webhooks/").json()["count"] == 0
    assert api.delete(f"/api/v1/webhooks/{created['id']}/").status_code == 204
    assert api.delete(f"/api/v1/webhooks/{created['id']}/").json()["error"]["code"] == "webhook_not_found"
    assert api.get("/api/v1/webhooks/").json()["count"] == 0
    assert WebhookEndpoint.objects.get(pk=created["id"]).disabled_at is not None  # kept, with its deliveries


@pytest.mark.parametrize("url", ["not a url", "ftp://partner.example/hooks", "https://" + "a" * 500 + ".com", ""])
def test_an_invalid_url_is_400(api, url):
    response = api.post("/api/v1/webhooks/", {"url": url})
    assert response.status_code == 400 and "url" in response.json()["error"]["details"]


def resolving_to(monkeypatch, address: str) -> None:
    """The partner's name resolves to ``address`` (there is no DNS on the test machines)."""
    info = [(socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 443))]
    monkeypatch.setattr(webhook_http.socket, "getaddrinfo", lambda *args, **kwargs: info)


@pytest.mark.parametrize(
    "url",
    [
        "http://partner.example/hooks",  # not https
        "https://127.0.0.1/hooks",
        "https://10.1.2.3/hooks",
        "https://169.254.169.254/latest/meta-data",  # cloud metadata
        "https://[::1]/hooks",
        "https://inside.example/hooks",  # resolves (below) to a private address
    ],
)
def test_a_webhook_may_not_target_the_platforms_own_network(api, settings, monkeypatch, url):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    host = url.split("/")[2].strip("[]")
    resolving_to(monkeypatch, "192.168.0.7" if host.endswith(".example") else host)
    response = api.post("/api/v1/webhooks/", {"url": url})
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_url"
    assert not WebhookEndpoint.objects.exists()


def test_a_name_that_comes_to_resolve_inside_is_not_posted_to(
    api, player, coup, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    monkeypatch.setattr(deliveries, "webhook_retry_delay", lambda retries: 0)
    resolving_to(monkeypatch, "93.184.215.14")  # public when registered
    register(api, "https://partner.example/hooks")
    resolving_to(monkeypatch, "127.0.0.1")  # rebound to loopback before the delivery
    place(api, {"player": "10"})
    with django_capture_on_commit_callbacks(execute=True):
        settle(coup)
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed" and delivery.last_status_code is None
    assert delivery.last_error == "refused: partner.example resolves to 127.0.0.1, which is not a public address"


def test_a_partner_has_at_most_ten_endpoints(api):
    for number in range(webhooks.MAX_ACTIVE_ENDPOINTS):
        register(api, f"https://partner.example/hooks/{number}")
    response = api.post("/api/v1/webhooks/", {"url": "https://partner.example/one-more"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "too_many_webhooks"


# --- Events --------------------------------------------------------------------------------------


def test_a_settlement_is_signed_and_delivered_after_two_failures(api, player, coup, django_capture_on_commit_callbacks):
    with Receiver([500, 503, 200]) as receiver:
        endpoint = register(api, receiver.url)
        place(api, {"player": "10", "player_pair": "2"})
        with django_capture_on_commit_callbacks(execute=True):
            settle(coup)
    (delivery,) = WebhookDelivery.objects.all()
    assert len(receiver.requests) == 3
    for headers, body in receiver.requests:
        assert signature_ok(endpoint["secret"], headers["Punto-Signature"], body)
        assert not signature_ok("whsec_wrong", headers["Punto-Signature"], body)
        assert not signature_ok(endpoint["secret"], headers["Punto-Signature"], body.replace(b"20.00", b"99.00"))
        assert headers["Content-Type"] == "application/json"
        assert headers["Punto-Event-Id"] == str(delivery.event_id)
        assert headers["Punto-Event-Type"] == "round.settled"
    event = json.loads(receiver.requests[-1][1])
    assert (event["id"], event["type"]) == (str(delivery.event_id), "round.settled")
    assert event["data"]["round"]["round_id"] == coup.round_id and event["data"]["round"]["winner"] == "player"
    assert event["data"]["round"]["state"] == "settled" and event["data"]["round"]["table"] == "pb1"
    assert [(bet["player_id"], bet["bet_type"], bet["outcome"], bet["returned"]) for bet in event["data"]["bets"]] == [
        ("p-1", "player", "win", "20.00"),
        ("p-1", "player_pair", "lose", "0.00"),
    ]
    assert event["data"]["players"] == [
        {"player_id": "p-1", "staked": "12.00", "returned": "20.00", "balance": "1008.00"}
    ]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code, delivery.last_error) == (
        "delivered",
        3,
        200,
        "",
    )
    assert delivery.delivered_at is not None


def test_a_void_is_delivered_with_the_refunds(api, player, coup, django_capture_on_commit_callbacks):
    with Receiver([200]) as receiver:
        endpoint = register(api, receiver.url)
        place(api, {"banker": "50"})
        with django_capture_on_commit_callbacks(execute=True):
            void(coup)
    ((headers, body),) = receiver.requests
    assert signature_ok(endpoint["secret"], headers["Punto-Signature"], body)
    event = json.loads(body)
    assert event["type"] == "round.voided"
    assert (event["data"]["round"]["state"], event["data"]["round"]["void_reason"]) == ("void", "dealing error")
    assert [(bet["state"], bet["outcome"], bet["returned"]) for bet in event["data"]["bets"]] == [
        ("refunded", "refund", "50.00")
    ]
    assert event["data"]["players"][0]["balance"] == "1000.00"


def test_each_partner_gets_its_own_bets_and_a_partner_without_bets_nothing(
    partner, other_partner, api, other_api, coup, django_capture_on_commit_callbacks
):
    player_make(partner, "p-1")
    player_make(other_partner, "g-1")
    with Receiver([200]) as receiver:
        register(api, receiver.url)
        register(other_api, receiver.url)
        place(api, {"player": "10"})
        with django_capture_on_commit_callbacks(execute=True):
            settle(coup)
    assert [delivery.endpoint.partner for delivery in WebhookDelivery.objects.all()] == [partner]
    ((_, body),) = receiver.requests
    assert [bet["player_id"] for bet in json.loads(body)["data"]["bets"]] == ["p-1"]


def test_an_event_is_written_once_per_coup_and_kind(api, player, coup, django_capture_on_commit_callbacks):
    register(api, "http://127.0.0.1:9/never")
    place(api, {"player": "10"})
    with django_capture_on_commit_callbacks(execute=False):
        settle(coup)
        assert webhooks.webhook_events_enqueue(coup=coup, kind=webhooks.SETTLEMENT) == []
    assert WebhookDelivery.objects.count() == 1


def test_an_endpoint_that_keeps_failing_ends_failed_with_the_last_error(
    api, player, coup, django_capture_on_commit_callbacks, monkeypatch
):
    delays = []
    monkeypatch.setattr(deliveries, "webhook_retry_delay", lambda retries: delays.append(retries) or 0)
    with Receiver([500]) as receiver:
        register(api, receiver.url)
        place(api, {"player": "10"})
        with django_capture_on_commit_callbacks(execute=True):
            settle(coup)
    assert len(receiver.requests) == deliveries.WEBHOOK_ATTEMPTS
    assert delays == list(range(deliveries.WEBHOOK_ATTEMPTS - 1))  # a backoff before every retry
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts) == ("failed", deliveries.WEBHOOK_ATTEMPTS)
    assert delivery.last_status_code == 500
    assert delivery.last_error.startswith("HTTP 500") and "try later" in delivery.last_error


def test_an_endpoint_that_does_not_answer_records_the_connection_error(
    api, player, coup, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(deliveries, "webhook_retry_delay", lambda retries: 0)
    with Receiver([200]) as closed:
        url = closed.url
    register(api, url)  # nobody listens there any more
    place(api, {"player": "10"})
    with django_capture_on_commit_callbacks(execute=True):
        settle(coup)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.last_status_code) == ("failed", None)
    assert "ConnectionRefusedError" in delivery.last_error


def test_the_backoff_doubles_with_jitter_up_to_a_cap():
    for retries in range(12):
        base = min(deliveries.RETRY_BASE_SECONDS * 2**retries, deliveries.RETRY_MAX_SECONDS)
        assert base <= deliveries.webhook_retry_delay(retries) <= base * 1.25
    assert deliveries.webhook_retry_delay(0) < deliveries.webhook_retry_delay(3)


def test_a_deleted_endpoint_gets_nothing_more(api, player, coup, django_capture_on_commit_callbacks):
    with Receiver([200]) as receiver:
        endpoint = register(api, receiver.url)
        place(api, {"player": "10"})
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            settle(coup)
        assert api.delete(f"/api/v1/webhooks/{endpoint['id']}/").status_code == 204
        for callback in callbacks:  # the settlement commits after the endpoint was deleted
            callback()
    assert receiver.requests == []
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.last_error) == ("failed", "the endpoint was deleted")


def test_a_failing_endpoint_never_fails_the_settlement_that_committed(
    api, player, coup, django_capture_on_commit_callbacks
):
    """With eager Celery (the embedded default) the first failure ends the task: logged, the delivery pending."""
    from casino import celery_app

    celery_app.conf.task_eager_propagates = True
    with Receiver([500]) as receiver:
        register(api, receiver.url)
        place(api, {"player": "10"})
        with django_capture_on_commit_callbacks(execute=True):
            settle(coup)
    delivery = WebhookDelivery.objects.get()
    assert (len(receiver.requests), delivery.status, delivery.attempts) == (1, "pending", 1)


# --- The admin -----------------------------------------------------------------------------------


def test_deliveries_and_their_failures_are_in_the_admin_and_a_failed_one_can_be_sent_again(
    client, api, player, coup, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(deliveries, "webhook_retry_delay", lambda retries: 0)
    with Receiver([500] * deliveries.WEBHOOK_ATTEMPTS + [200]) as receiver:
        register(api, receiver.url)
        place(api, {"player": "10"})
        with django_capture_on_commit_callbacks(execute=True):
            settle(coup)
        delivery = WebhookDelivery.objects.get()
        staff_login(client, UserFactory(is_staff=True, is_superuser=True))
        changelist = client.get(reverse("admin:partners_webhookdelivery_changelist"))
        assert changelist.status_code == 200 and str(delivery.event_id) in changelist.content.decode()
        detail = client.get(reverse("admin:partners_webhookdelivery_change", args=[delivery.pk])).content.decode()
        assert "HTTP 500" in detail and "Failed (out of attempts)" in detail
        with django_capture_on_commit_callbacks(execute=True):
            client.post(
                reverse("admin:partners_webhookdelivery_changelist"),
                {"action": "resend", "_selected_action": [delivery.pk]},
            )
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        "delivered",
        deliveries.WEBHOOK_ATTEMPTS + 1,
        200,
    )


def test_an_endpoint_gets_only_the_events_it_subscribed_to(
    api, partner, player, coup, django_capture_on_commit_callbacks
):
    only_voids = api.post("/api/v1/webhooks/", {"url": "https://partner.example/voids", "events": ["round.voided"]})
    assert only_voids.status_code == 201 and only_voids.json()["events"] == ["round.voided"]
    everything = api.post("/api/v1/webhooks/", {"url": "https://partner.example/all"}).json()
    api.post("/api/v1/players/p-1/bets/", {"table": "pb1", "bets": {"player": "10"}}, HTTP_IDEMPOTENCY_KEY="k1")
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    coup_settle(coup_id=coup.pk)
    settled = WebhookDelivery.objects.filter(event_type="round.settled")
    assert [delivery.endpoint_id for delivery in settled] == [everything["id"]]
    for bad in ([], ["round.exploded"], "round.voided"):
        response = api.post("/api/v1/webhooks/", {"url": "https://partner.example/x", "events": bad})
        assert response.status_code == 400, bad


def test_a_finished_shoe_is_sent_with_its_reveal(api, partner):
    api.post("/api/v1/webhooks/", {"url": "https://partner.example/shoes", "events": ["shoe.finished"]})
    table = TableFactory(code="pb9")
    shoe = shoe_start(shoe=shoe_prepare(table=table))  # an RNG shoe, its order committed
    lifecycle.shoe_end(shoe=shoe, discard=True, reason="cards replaced")
    delivery = WebhookDelivery.objects.get(event_type="shoe.finished")
    assert delivery.shoe_id == shoe.pk and delivery.coup_id is None
    data = delivery.payload["data"]
    assert data["table"] == "pb9" and data["shoe"]["number"] == shoe.number
    assert data["shoe"]["revealed"] is True and len(data["shoe"]["card_order"]) == shoe.decks * 52
