"""What the table's WebSocket refuses (``kernel.sockets``): an unknown table, bad messages, oversize frames,
snapshot floods, too many sockets per user or anonymous address (counted in the shared cache: Redis with
REDIS_URL, across processes)."""

import asyncio
import json
import re
import socket
import threading
import time

import pytest
import uvicorn
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import get_user_model
from websockets.exceptions import ConnectionClosedError
from websockets.sync.client import connect as ws_connect

from casino.asgi import application
from kernel.sockets import (
    MAX_MESSAGE_BYTES,
    MESSAGE_TOO_BIG,
    SNAPSHOT_BURST,
    TOO_MANY_CONNECTIONS,
    WS_MAX_FRAME_BYTES,
)
from tables.services import table_create

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")]
ORIGIN = (b"origin", b"http://127.0.0.1")


@pytest.fixture
def table(db):
    boss = get_user_model().objects.create_user(username="boss")
    return table_create(code="lim1", name="Limits 1", actor=boss)


def communicator(code: str, *, cookie: bytes | None = None, address: str = "203.0.113.7") -> WebsocketCommunicator:
    headers = [ORIGIN] + ([(b"cookie", cookie)] if cookie else [])
    ws = WebsocketCommunicator(application, f"/ws/tables/{code}/", headers=headers)
    ws.scope["client"] = (address, 50000)  # the server's peer address (uvicorn --proxy-headers: the forwarded one)
    return ws


async def join(code: str, **who) -> WebsocketCommunicator:
    ws = communicator(code, **who)
    connected, _ = await ws.connect()
    assert connected
    assert (await ws.receive_json_from())["type"] == "snapshot"
    return ws


async def closed_with(ws: WebsocketCommunicator, code: int) -> None:
    assert await ws.receive_output() == {"type": "websocket.close", "code": code}


# --- Unknown tables and bad messages ------------------------------------------------------------


async def test_an_unknown_table_is_refused():
    ws = communicator("nope")
    connected, code = await ws.connect()
    assert not connected and code == 4404


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("not json", "bad_message"),
        ("[1, 2]", "bad_message"),
        ('{"type": 3}', "bad_message"),
        ('{"type": "deal", "card": "AS"}', "unknown_message"),  # viewers never deal
        ("x" * 5000, "bad_message"),
    ],
)
async def test_bad_messages_get_an_error_and_nothing_else(table, frame, code):
    ws = await join(table.code)
    await ws.send_to(text_data=frame)
    reply = await ws.receive_json_from()
    assert reply["type"] == "error" and reply["data"]["code"] == code and reply["data"]["message"]
    assert await ws.receive_nothing()
    await ws.send_json_to({"type": "ping"})
    assert (await ws.receive_json_from())["type"] == "pong"
    await ws.disconnect()


# --- Frame size ---------------------------------------------------------------------------------


async def test_a_frame_over_64_kib_closes_the_socket_with_1009(table):
    ws = await join(table.code)
    await ws.send_to(text_data=json.dumps({"type": "chat", "text": "x" * WS_MAX_FRAME_BYTES}))
    await closed_with(ws, MESSAGE_TOO_BIG)


async def test_a_binary_frame_over_64_kib_closes_the_socket_too(table):
    ws = await join(table.code)
    await ws.send_to(bytes_data=b"\0" * (WS_MAX_FRAME_BYTES + 1))
    await closed_with(ws, MESSAGE_TOO_BIG)


async def test_a_frame_under_64_kib_but_over_the_message_limit_gets_an_error_and_the_socket_stays(table):
    ws = await join(table.code)
    await ws.send_to(text_data=json.dumps({"type": "ping", "pad": "x" * MAX_MESSAGE_BYTES}))
    assert (await ws.receive_json_from())["data"]["code"] == "bad_message"
    await ws.send_json_to({"type": "ping"})
    assert (await ws.receive_json_from())["type"] == "pong"
    await ws.disconnect()


def test_the_procfile_and_manage_py_serve_set_the_server_limit():
    procfile = (settings.BASE_DIR / "Procfile").read_text()
    assert re.search(rf"^web: .*uvicorn .*--ws-max-size {WS_MAX_FRAME_BYTES}\b", procfile, re.M)
    serve = (settings.BASE_DIR / "casino" / "management" / "commands" / "serve.py").read_text()
    assert "ws_max_size=WS_MAX_FRAME_BYTES" in serve


@pytest.fixture
def uvicorn_server():
    """The ASGI application under uvicorn with the limit the Procfile and manage.py serve give it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        application, host="127.0.0.1", port=port, lifespan="off", log_level="error", ws_max_size=WS_MAX_FRAME_BYTES
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"ws://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def test_the_server_refuses_a_frame_over_64_kib_before_the_application(table, uvicorn_server):
    with ws_connect(
        f"{uvicorn_server}/ws/tables/{table.code}/", origin="http://127.0.0.1", max_size=None, open_timeout=10
    ) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
        ws.send("x" * (WS_MAX_FRAME_BYTES + 1))
        with pytest.raises(ConnectionClosedError) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd.code == MESSAGE_TOO_BIG


# --- Snapshot requests --------------------------------------------------------------------------


async def test_snapshot_requests_beyond_the_burst_are_refused_until_the_allowance_refills(table):
    ws = await join(table.code)
    for _ in range(SNAPSHOT_BURST):
        await ws.send_json_to({"type": "snapshot"})
        assert (await ws.receive_json_from())["type"] == "snapshot"
    await ws.send_json_to({"type": "snapshot"})
    refused = await ws.receive_json_from()
    assert refused["type"] == "error" and refused["data"]["code"] == "snapshot_too_fast"
    assert await ws.receive_nothing()
    await asyncio.sleep(1.1)
    await ws.send_json_to({"type": "snapshot"})
    assert (await ws.receive_json_from())["type"] == "snapshot"
    await ws.disconnect()


# --- Sockets per user and per address -----------------------------------------------------------


async def test_a_user_holds_at_most_the_limit_of_sockets(table, settings, alice, bob):
    cookie = alice
    limit = settings.WS_MAX_CONNECTIONS_PER_USER
    sockets = [await join(table.code, cookie=cookie, address=f"198.51.100.{number}") for number in range(limit)]
    extra = communicator(table.code, cookie=cookie, address="192.0.2.1")
    assert (await extra.connect())[0]
    await closed_with(extra, TOO_MANY_CONNECTIONS)
    other_user = await join(table.code, cookie=bob)
    await sockets.pop().disconnect()
    again = await join(table.code, cookie=cookie)
    for ws in (*sockets, other_user, again):
        await ws.disconnect()


async def test_anonymous_viewers_are_capped_per_address(table, settings):
    settings.WS_MAX_CONNECTIONS_PER_ADDRESS = 2
    sockets = [await join(table.code) for _ in range(2)]
    extra = communicator(table.code)
    assert (await extra.connect())[0]
    await closed_with(extra, TOO_MANY_CONNECTIONS)
    elsewhere = await join(table.code, address="198.51.100.2")
    for ws in (*sockets, elsewhere):
        await ws.disconnect()


async def test_a_limit_of_zero_caps_nothing(table, settings):
    settings.WS_MAX_CONNECTIONS_PER_ADDRESS = 0
    sockets = [await join(table.code) for _ in range(3)]
    for ws in sockets:
        await ws.disconnect()
