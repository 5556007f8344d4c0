"""A staff member's WebSocket follows the rules their pages follow
(``casino.sign_in.two_factor.StaffSocketMiddleware``):
a staff session without a verified device is anonymous on a socket too, and an open staff socket is closed
(4401, ``live.js`` reconnects, then as nobody) once its session has ended: idle for
``STAFF_SESSION_IDLE_MINUTES`` (the socket's own messages are not the staff member at work), signed out, or its
device removed. Players' sockets are not watched.

What a signed-in socket has that an anonymous one has not is the chat in the user's name (and the user's own
events): a staff session that pages would treat as anonymous must not keep it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice

from casino.asgi import application
from casino.sign_in import two_factor
from tests.factories import TableFactory, UserFactory, staff_login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")]

IDLE = settings.STAFF_SESSION_IDLE_MINUTES
CHECK_SECONDS = 0.05


@pytest.fixture(autouse=True)
def table(db):
    return TableFactory(code="st1")


@pytest.fixture(autouse=True)
def quick_checks(monkeypatch):
    monkeypatch.setattr(two_factor, "STAFF_SOCKET_CHECK_SECONDS", CHECK_SECONDS)


@pytest.fixture
def clock(monkeypatch):
    """Move the server's clock forward by some minutes (the session store's expiry reads it)."""
    real_now = timezone.now
    moved = {"minutes": 0}
    monkeypatch.setattr(timezone, "now", lambda: real_now() + timedelta(minutes=moved["minutes"]))

    def move_to(minutes: int) -> None:
        moved["minutes"] = minutes

    return move_to


@database_sync_to_async
def staff_at_work(*, verified: bool = True) -> tuple[Client, bytes]:
    """A pit boss's browser, signed in (by the staff sign-in, or by password alone) and having opened a page."""
    user = UserFactory(username="pitboss", is_staff=True)
    client = Client()
    if verified:
        staff_login(client, user)
    else:
        client.force_login(user)
    client.get("/admin/")  # a page: the staff session's idle minutes start (StaffSessionMiddleware)
    return client, cookie_of(client)


@database_sync_to_async
def player_at_work() -> tuple[Client, bytes]:
    client = Client()
    client.force_login(UserFactory(username="alice"))
    return client, cookie_of(client)


def cookie_of(client: Client) -> bytes:
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def join(cookie: bytes) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)]
    ws = WebsocketCommunicator(application, "/ws/tables/st1/", headers=headers)
    connected, _ = await ws.connect()
    assert connected
    assert (await ws.receive_json_from())["type"] == "snapshot"
    return ws


async def chats_as_signed_in(ws: WebsocketCommunicator) -> bool:
    """Whether the socket may chat in its user's name (an anonymous socket is told to sign in)."""
    for user_id in await database_sync_to_async(lambda: list(get_user_model().objects.values_list("pk", flat=True)))():
        await cache.adelete(f"chat:{user_id}")  # one message a second: these tests chat more often
    await ws.send_json_to({"type": "chat", "text": "hello"})
    reply = await ws.receive_json_from()
    assert reply["type"] == "chat" or reply["data"]["code"] == "chat_sign_in", reply
    return reply["type"] == "chat"


async def closed_with(ws: WebsocketCommunicator) -> int:
    output = await ws.receive_output(timeout=2)
    assert output["type"] == "websocket.close", output
    return output["code"]


async def test_a_staff_session_without_a_verified_device_is_anonymous_on_a_socket():
    _, cookie = await staff_at_work(verified=False)
    ws = await join(cookie)
    assert not await chats_as_signed_in(ws)
    await ws.disconnect()


async def test_a_staff_socket_whose_device_was_removed_since_is_anonymous():
    _, cookie = await staff_at_work()
    await database_sync_to_async(lambda: TOTPDevice.objects.all().delete())()
    ws = await join(cookie)
    assert not await chats_as_signed_in(ws)
    await ws.disconnect()


async def test_a_verified_staff_socket_is_signed_in_and_stays_open(clock):
    client, cookie = await staff_at_work()
    ws = await join(cookie)
    assert await chats_as_signed_in(ws)
    assert await ws.receive_nothing(timeout=CHECK_SECONDS * 6)  # checked several times: still current
    clock(IDLE - 1)
    await database_sync_to_async(client.get)("/admin/")  # the staff member at work, on a page
    clock(2 * IDLE - 2)
    assert await ws.receive_nothing(timeout=CHECK_SECONDS * 6)
    assert await chats_as_signed_in(ws)
    await ws.disconnect()


async def test_an_open_staff_socket_closes_once_the_session_is_idle(clock):
    """Pings (``live.js`` sends one every 20 s) are the page keeping its socket, not the staff member at work:
    an unattended tablet still signs out, and its socket with it."""
    _, cookie = await staff_at_work()
    ws = await join(cookie)
    for _ in range(3):
        await ws.send_json_to({"type": "ping"})
        assert (await ws.receive_json_from())["type"] == "pong"
    clock(IDLE + 1)
    assert await closed_with(ws) == two_factor.STAFF_SESSION_ENDED
    again = await join(cookie)  # live.js reconnects: as nobody
    assert not await chats_as_signed_in(again)
    await again.disconnect()


@pytest.mark.parametrize("ending", ["sign_out", "device_removed"])
async def test_signing_out_or_removing_the_device_closes_an_open_staff_socket(ending):
    client, cookie = await staff_at_work()
    ws = await join(cookie)
    if ending == "sign_out":
        await database_sync_to_async(client.post)("/admin/logout/")
    else:
        await database_sync_to_async(lambda: TOTPDevice.objects.all().delete())()
    assert await closed_with(ws) == two_factor.STAFF_SESSION_ENDED


async def test_a_staff_socket_whose_session_cannot_be_checked_is_closed(monkeypatch):
    """Fails closed (the database away, say): live.js reconnects, and its connect checks the session again."""
    _, cookie = await staff_at_work()
    ws = await join(cookie)

    async def unreachable(session_key: str) -> int:
        raise ConnectionError("the database is away")

    monkeypatch.setattr(two_factor, "_session_user_id", unreachable)
    assert await closed_with(ws) == two_factor.STAFF_SESSION_ENDED


async def test_a_closed_staff_socket_gives_its_slot_back(clock, settings):
    """The consumer is told (its disconnect runs): the user's socket allowance is not used up by dead sockets."""
    settings.WS_MAX_CONNECTIONS_PER_USER = 1
    _, cookie = await staff_at_work()
    ws = await join(cookie)
    clock(IDLE + 1)
    assert await closed_with(ws) == two_factor.STAFF_SESSION_ENDED
    clock(0)
    user = await database_sync_to_async(get_user_model().objects.get)(username="pitboss")
    again = await join(await database_sync_to_async(lambda: cookie_of(staff_login(Client(), user)))())
    assert await chats_as_signed_in(again)
    await again.disconnect()


async def test_a_players_socket_is_not_watched(clock):
    _, cookie = await player_at_work()
    ws = await join(cookie)
    clock(IDLE * 10)
    assert await ws.receive_nothing(timeout=CHECK_SECONDS * 6)
    assert await chats_as_signed_in(ws)
    await ws.disconnect()
