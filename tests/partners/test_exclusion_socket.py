"""An operator's exclusion reaches the player's open table socket at once: the ``protection`` event comes
within a second, and from then on the socket refuses the player's bets itself (``self_excluded``), until the
operator lifts it; an undo stays open."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async as in_thread
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone

from casino.asgi import application
from tests.factories import CoupFactory, TableFactory
from tests.partners.conftest import client_for, launch_open, partner_make, player_make
from wagering.models import BetRequest

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")]


def launched_player() -> tuple[object, object, bytes]:
    """A partner with a key, its funded player launched into a browser: (the API, the coup, the cookie)."""
    partner = partner_make("acme")
    api = client_for(partner)
    player_make(partner, "p-1")
    coup = CoupFactory(table=TableFactory(code="pb1"), betting_closes_at=timezone.now() + timedelta(minutes=5))
    browser = Client()
    url = api.post("/api/v1/sessions/", {"player_id": "p-1", "currency": "EUR"}).json()["launch_url"]
    assert launch_open(browser, url).status_code == 302
    return api, coup, f"sessionid={browser.cookies['sessionid'].value}".encode()


async def next_of(ws: WebsocketCommunicator, *types: str, timeout: float = 5) -> dict:
    while True:
        message = await ws.receive_json_from(timeout=timeout)
        if message["type"] in types:
            return message


async def ask(ws: WebsocketCommunicator, message: dict) -> dict:
    await ws.send_json_to(message)
    return await next_of(ws, "bet_accepted", "bet_rejected")


async def test_an_exclusion_closes_the_players_open_socket_to_bets_within_a_second():
    api, coup, cookie = await in_thread(launched_player)()
    ws = WebsocketCommunicator(
        application, "/ws/tables/pb1/", headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)]
    )
    assert (await ws.connect())[0] and (await ws.receive_json_from())["type"] == "snapshot"
    place = {"type": "bet", "round_id": coup.round_id, "bets": {"banker": "10.00"}}
    assert (await ask(ws, {**place, "request_id": "b-1"}))["type"] == "bet_accepted"

    excluded = await in_thread(api.post)("/api/v1/players/p-1/exclusion/", {"reason": "register"})
    assert excluded.status_code == 200
    event = await next_of(ws, "protection", timeout=1)
    assert event["data"]["operator_excluded"] is True
    refused = await ask(ws, {**place, "request_id": "b-2"})
    assert (refused["type"], refused["request_id"], refused["error"]["code"]) == (
        "bet_rejected",
        "b-2",
        "self_excluded",
    )
    # Refused by the socket itself: the request never reached the table's intake (which records every answer).
    assert not await BetRequest.objects.filter(key="b-2").aexists()
    rebet = await ask(ws, {"type": "rebet", "request_id": "r-1", "round_id": coup.round_id, "multiplier": 2})
    assert rebet["error"]["code"] == "self_excluded"
    undone = await ask(ws, {"type": "undo", "request_id": "u-1", "round_id": coup.round_id})
    assert undone["type"] == "bet_accepted" and undone["balance"] == "1000.00"

    assert (await in_thread(api.delete)("/api/v1/players/p-1/exclusion/")).status_code == 200
    assert (await next_of(ws, "protection", timeout=1))["data"]["operator_excluded"] is False
    assert (await ask(ws, {**place, "request_id": "b-3"}))["type"] == "bet_accepted"
    await ws.disconnect()
