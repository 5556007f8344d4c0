"""The ``player.*`` webhook events: a reality check's answer, and a session's limit reached once per session
(the beat's job), signed like every event, to the player's partner's subscribed endpoints only."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import timezone

from casino.lifecycle import tasks
from kernel.live import user_group
from partners.models import WebhookDelivery
from partners.player_events import player_reality_check_tell, player_sessions_ended_tell
from tests.factories import UserFactory
from tests.partners.conftest import idempotency_key, player_make
from tests.partners.test_webhooks import Receiver, signature_ok
from wagering.models import PlayerProtection
from wagering.protection.services import play_session_start, reality_check_answer

pytestmark = pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")


def subscribe(api, url: str, *events: str) -> dict:
    response = api.post("/api/v1/webhooks/", {"url": url, **({"events": list(events)} if events else {})})
    assert response.status_code == 201, response.json()
    return response.json()


def test_a_reality_check_answer_is_told_signed_to_the_players_partner_only(
    api, other_api, partner, player, coup, django_capture_on_commit_callbacks
):
    with Receiver([200]) as receiver:
        endpoint = subscribe(api, receiver.url)
        subscribe(api, receiver.url + "&settled", "round.settled")  # not subscribed to it
        subscribe(other_api, receiver.url + "&other")  # another partner's
        play_session_start(user=player.user, reality_check_minutes=15)
        placed = api.post(
            "/api/v1/players/p-1/bets/", {"table": "pb1", "bets": {"banker": "25.00"}}, **idempotency_key()
        )
        assert placed.status_code == 201
        PlayerProtection.objects.filter(pk=player.user_id).update(
            session_started_at=timezone.now() - timedelta(minutes=16),
            reality_check_due_at=timezone.now() - timedelta(minutes=1),
        )
        summary = reality_check_answer(user=player.user, answer="leave")
        with django_capture_on_commit_callbacks(execute=True):
            player_reality_check_tell(user=player.user, answer="leave", summary=summary)
            player_reality_check_tell(user=UserFactory(), answer="continue", summary=summary)  # not a partner's
    (request,) = receiver.requests
    headers, body = request
    assert signature_ok(endpoint["secret"], headers["Punto-Signature"], body)
    assert headers["Punto-Event-Type"] == "player.reality_check"
    event = json.loads(body)
    assert event["type"] == "player.reality_check" and headers["Punto-Event-Id"] == event["id"]
    assert event["data"] == {
        "player_id": "p-1",
        "answer": "leave",
        "session": {"minutes": 16, "staked": "25.00", "returned": "0.00", "net": "-25.00"},
        "currency": "EUR",
    }
    delivery = WebhookDelivery.objects.get()
    assert (delivery.endpoint_id, delivery.player, delivery.status) == (endpoint["id"], player, "delivered")


def test_a_sessions_limit_reached_is_told_once_per_session(
    api, partner, player, other_partner, django_capture_on_commit_callbacks
):
    theirs = player_make(other_partner, "g-1")  # another partner's, with no endpoint
    own = UserFactory()  # ours, no partner's
    later = player_make(partner, "p-2")
    for user in (player.user, theirs.user, own):
        play_session_start(user=user, session_limit_minutes=30)
    play_session_start(user=later.user, session_limit_minutes=60)
    layer = get_channel_layer()
    async_to_sync(layer.group_add)(user_group(player.user_id), "page-of-p-1")
    with Receiver([200]) as receiver:
        endpoint = subscribe(api, receiver.url, "player.session_limit_reached")
        with django_capture_on_commit_callbacks(execute=True):
            assert player_sessions_ended_tell(now=timezone.now() + timedelta(minutes=29)) == 0
            assert player_sessions_ended_tell(now=timezone.now() + timedelta(minutes=31)) == 3
            assert player_sessions_ended_tell(now=timezone.now() + timedelta(minutes=45)) == 0  # once
    (request,) = receiver.requests
    headers, body = request
    assert signature_ok(endpoint["secret"], headers["Punto-Signature"], body)
    event = json.loads(body)
    row = PlayerProtection.objects.get(pk=player.user_id)
    assert event["type"] == "player.session_limit_reached" and event["data"] == {
        "player_id": "p-1",
        "session": {
            "started_at": row.session_started_at.isoformat(),
            "ended_at": row.session_ends_at.isoformat(),
            "minutes": 30,
            "staked": "0.00",
            "returned": "0.00",
            "net": "0.00",
        },
        "currency": "EUR",
    }
    told = set(PlayerProtection.objects.filter(session_limit_told=True).values_list("pk", flat=True))
    assert told == {player.user_id, theirs.user_id, own.pk}
    page = async_to_sync(layer.receive)("page-of-p-1")  # the player's page ends the session
    live = json.loads(page["text"])
    assert live["type"] == "protection" and live["data"]["session_ends_at"] == row.session_ends_at.isoformat()
    PlayerProtection.objects.filter(pk=player.user_id).update(session_ends_at=timezone.now())  # it ended
    play_session_start(user=player.user, session_limit_minutes=30)  # a new session: told again when it ends
    with django_capture_on_commit_callbacks(execute=False):
        assert player_sessions_ended_tell(now=timezone.now() + timedelta(minutes=61)) == 2  # with p-2's
    assert WebhookDelivery.objects.filter(player=player).count() == 2
    assert WebhookDelivery.objects.filter(player=later).count() == 1


def test_the_beat_runs_it_every_minute_on_the_webhooks_queue(api, partner, player, django_capture_on_commit_callbacks):
    entry = settings.CELERY_BEAT_SCHEDULE["casino-play-sessions-ended-tell"]
    assert entry["schedule"] == 60.0
    assert settings.CELERY_TASK_ROUTES[entry["task"]] == {"queue": "webhooks"}
    subscribe(api, "http://127.0.0.1:9/never")
    play_session_start(user=player.user, session_limit_minutes=1)
    PlayerProtection.objects.filter(pk=player.user_id).update(session_ends_at=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=False):
        assert tasks.play_sessions_ended_tell.delay().get() == 1
        assert tasks.play_sessions_ended_tell.delay().get() == 0
    delivery = WebhookDelivery.objects.get()
    assert (delivery.event_type, delivery.player) == ("player.session_limit_reached", player)


def test_the_player_events_are_a_partners_to_choose(api, partner):
    every = api.get("/api/v1/webhooks/").json()["results"]
    assert every == []
    endpoint = subscribe(api, "https://partner.example/hooks")
    assert {"player.session_limit_reached", "player.reality_check"} <= set(endpoint["events"])
    chosen = subscribe(api, "https://partner.example/rg", "player.reality_check")
    assert chosen["events"] == ["player.reality_check"]
    unknown = api.post("/api/v1/webhooks/", {"url": "https://partner.example/x", "events": ["player.unknown"]})
    assert unknown.status_code == 400 and "events" in unknown.json()["error"]["details"]


def test_the_table_pages_answer_tells_the_partner_in_its_transaction(api, partner, player, client):
    """The reality check answered on the table page (``/account/reality-check/``) by a launched player writes
    the partner's ``player.reality_check`` with it; a refused answer writes none."""
    subscribe(api, "http://127.0.0.1:9/hook", "player.reality_check")
    client.force_login(player.user)
    assert (
        client.post("/account/reality-check/", {"answer": "continue"}, content_type="application/json").status_code
        == 400
    )
    assert not WebhookDelivery.objects.exists()  # no check was due: nothing answered, nothing told
    PlayerProtection.objects.filter(pk=player.user_id).update(
        reality_check_due_at=timezone.now() - timedelta(seconds=1)
    )
    answered = client.post("/account/reality-check/", {"answer": "continue"}, content_type="application/json")
    assert answered.status_code == 200
    (delivery,) = WebhookDelivery.objects.all()
    assert (delivery.event_type, delivery.player, delivery.payload["data"]["answer"]) == (
        "player.reality_check",
        player,
        "continue",
    )
