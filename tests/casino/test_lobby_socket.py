"""The lobby's one socket (``/ws/lobby/``): a snapshot of every table, then every table's public events, each
naming its table; one table's snapshot on request; one socket in the player's allowance however many tables
are open (a lobby of more open tables than the allowance used to leave cards "Reconnecting…")."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from casino.asgi import application
from casino.players import lobby_socket
from kernel import table_broadcast
from kernel.live import table_event_send, user_event_send
from kernel.sockets import TOO_MANY_CONNECTIONS
from tables.services import table_create, table_open

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")]
ORIGIN = (b"origin", b"http://127.0.0.1")


@pytest.fixture
def tables(db):
    boss = get_user_model().objects.create_user(username="boss")
    opened = [table_open(table=table_create(code=code, name=code, actor=boss), actor=boss) for code in ("la", "lb")]
    return [*opened, table_create(code="lc", name="lc", actor=boss)]  # lc closed


def socket(path: str = "/ws/lobby/", cookie: bytes | None = None) -> WebsocketCommunicator:
    ws = WebsocketCommunicator(application, path, headers=[ORIGIN] + ([(b"cookie", cookie)] if cookie else []))
    ws.scope["client"] = ("198.51.100.20", 50000)
    return ws


async def lobby_open(**options) -> tuple[WebsocketCommunicator, dict[str, dict]]:
    ws = socket(**options)
    connected, _ = await ws.connect()
    assert connected
    snapshots = {}
    for _ in range(3):
        message = await ws.receive_json_from()
        assert message["type"] == "snapshot"
        snapshots[message["table"]] = message["data"]
    return ws, snapshots


async def test_a_snapshot_of_every_table_then_every_tables_events_each_naming_its_table(tables):
    ws, snapshots = await lobby_open()
    assert list(snapshots) == ["la", "lb", "lc"]
    assert [snapshots[code]["table"]["is_open"] for code in snapshots] == [True, True, False]
    assert "card_order" not in json.dumps(snapshots)

    for event_type in ("bet_totals", "chat", "seats"):  # not shown in the lobby: not sent
        await asyncio.to_thread(table_event_send, table_code="lb", event_type=event_type, data={})
    await asyncio.to_thread(table_event_send, table_code="lb", event_type="dealer_changed", data={"dealer": "Eve"})
    event = await ws.receive_json_from()
    assert (event["type"], event["table"], event["data"]) == ("dealer_changed", "lb", {"dealer": "Eve"})
    await asyncio.to_thread(table_event_send, table_code="lc", event_type="table_opened", data={})
    assert (await ws.receive_json_from())["table"] == "lc"  # a closed table is followed: it may open
    await ws.disconnect()


async def test_one_tables_snapshot_on_request_and_anything_else_refused(tables):
    ws, _ = await lobby_open()
    await ws.send_json_to({"type": "snapshot", "table": "lb"})
    again = await ws.receive_json_from()
    assert (again["type"], again["table"], again["data"]["table"]["code"]) == ("snapshot", "lb", "lb")
    for message, code in (
        ({"type": "snapshot", "table": "nope"}, "unknown_table"),
        ({"type": "snapshot"}, "unknown_table"),
        ({"type": "chat", "text": "hi"}, "unknown_message"),
        ({"type": "bet", "round_id": "x", "bets": {"banker": "5"}}, "unknown_message"),
    ):
        await ws.send_json_to(message)
        answer = await ws.receive_json_from()
        assert (answer["type"], answer["data"]["code"]) == ("error", code)
    await ws.send_json_to({"type": "ping"})
    assert (await ws.receive_json_from())["type"] == "pong"
    await ws.disconnect()


async def test_snapshot_requests_past_one_per_table_at_once_are_refused(tables):
    ws, _ = await lobby_open()
    answers = []
    for _ in range(4):  # three tables: three at once, then one a second
        await ws.send_json_to({"type": "snapshot", "table": "la"})
        answers.append(await ws.receive_json_from())
    assert [answer["type"] for answer in answers] == ["snapshot"] * 3 + ["error"]
    assert (answers[-1]["data"]["code"], answers[-1]["table"]) == ("snapshot_too_fast", "la")  # the card retries
    await ws.disconnect()


async def test_a_players_own_events_do_not_reach_the_lobby(tables):
    alice = await asyncio.to_thread(get_user_model().objects.create_user, username="alice")
    client = Client()
    await asyncio.to_thread(client.force_login, alice)
    ws, _ = await lobby_open(cookie=f"sessionid={client.cookies['sessionid'].value}".encode())
    await asyncio.to_thread(user_event_send, user_id=alice.pk, event_type="balance", data={"balance": "5.00"})
    await asyncio.to_thread(table_event_send, table_code="la", event_type="dealer_changed", data={"dealer": "Eve"})
    assert (await ws.receive_json_from())["type"] == "dealer_changed"  # the balance never came
    await ws.disconnect()


SLOW_SECONDS = 10


async def test_a_lobby_of_more_open_tables_than_the_allowance_is_one_socket(settings):
    """Forty open tables, an allowance of ten: the lobby and nine table pages, the eleventh socket refused."""
    boss = await asyncio.to_thread(get_user_model().objects.create_user, username="floor")
    codes = [f"t{number:02}" for number in range(40)]
    for code in codes:
        await asyncio.to_thread(lambda code=code: table_open(table=table_create(code=code, name=code, actor=boss)))
    alice = await asyncio.to_thread(get_user_model().objects.create_user, username="alice")
    client = Client()
    await asyncio.to_thread(client.force_login, alice)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    assert settings.WS_MAX_CONNECTIONS_PER_USER == 10
    lobby = socket(cookie=cookie)
    # Forty tables' snapshots: a loaded machine (CI runs two passes side by side) needs more than a second.
    assert (await lobby.connect(timeout=SLOW_SECONDS))[0]
    assert {(await lobby.receive_json_from(timeout=SLOW_SECONDS))["table"] for _ in codes} == set(codes)
    pages = [socket(f"/ws/tables/{code}/", cookie=cookie) for code in codes[:10]]
    for page in pages[:9]:
        assert (await page.connect(timeout=SLOW_SECONDS))[0]
        assert (await page.receive_json_from(timeout=SLOW_SECONDS))["type"] == "snapshot"
    await pages[9].connect(timeout=SLOW_SECONDS)
    assert await pages[9].receive_output(timeout=SLOW_SECONDS) == {
        "type": "websocket.close",
        "code": TOO_MANY_CONNECTIONS,
    }
    for ws in (lobby, *pages[:9]):
        await ws.disconnect()


async def test_an_owner_opens_at_most_three_lobby_sockets_a_second(tables, monkeypatch):
    """Each connect reads every table's snapshot: a reconnect loop is held to three a second."""
    monkeypatch.setattr(lobby_socket.time, "time", lambda: 1_800_000_000.5)  # one second for the whole test
    opened = [(await lobby_open())[0] for _ in range(3)]
    fourth = socket()
    await fourth.connect()
    assert await fourth.receive_output() == {"type": "websocket.close", "code": TOO_MANY_CONNECTIONS}
    for ws in opened:
        await ws.disconnect()


async def test_a_snapshot_failing_on_connect_gives_the_slot_and_the_tables_back(tables, monkeypatch, settings):
    settings.WS_MAX_CONNECTIONS_PER_ADDRESS = 1
    real = lobby_socket.table_shared_read
    monkeypatch.setattr(lobby_socket, "table_shared_read", lambda code: 1 / 0)
    broken = socket()
    connected, _ = await broken.connect()
    assert connected
    assert await broken.receive_output() == {"type": "websocket.close", "code": 1011}
    with pytest.raises(ZeroDivisionError):
        await broken.wait()
    assert not any(table.listeners for table in table_broadcast._tables.get(asyncio.get_running_loop(), {}).values())
    monkeypatch.setattr(lobby_socket, "table_shared_read", real)
    ws, snapshots = await lobby_open()  # the address's only slot is free again (and the failed read not shared)
    assert list(snapshots) == ["la", "lb", "lc"]
    await ws.disconnect()
