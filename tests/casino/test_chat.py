"""Table chat over the table's WebSocket: signed-in players only, one printable line, 200 characters,
one message a second per player; everyone at the table (and nobody else) receives it."""

import asyncio

import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from casino.asgi import application
from casino.players.chat import CHAT_MAX_LENGTH
from tables.services import table_create

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")]


@pytest.fixture
def tables(db):
    boss = get_user_model().objects.create_user(username="boss")
    return [table_create(code=code, name=code, actor=boss) for code in ("chat1", "chat2")]


async def join(code: str, cookie: bytes | None = None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://127.0.0.1")] + ([(b"cookie", cookie)] if cookie else [])
    ws = WebsocketCommunicator(application, f"/ws/tables/{code}/", headers=headers)
    connected, _ = await ws.connect()
    assert connected
    assert (await ws.receive_json_from())["type"] == "snapshot"
    return ws


async def refused(ws: WebsocketCommunicator, code: str) -> None:
    reply = await ws.receive_json_from()
    assert reply["type"] == "error" and reply["data"]["code"] == code and reply["data"]["message"]
    assert await ws.receive_nothing()


async def test_a_message_reaches_everyone_at_the_table_and_nobody_else(tables, alice, bob):
    sender, player, spectator, elsewhere = (
        await join("chat1", alice),
        await join("chat1", bob),
        await join("chat1"),
        await join("chat2", bob),
    )
    await sender.send_json_to({"type": "chat", "text": "  good\tluck \n <b>all</b>\x00 "})
    expected = {
        "type": "chat",
        "version": 1,
        "table": "chat1",
        "data": {"user": "al***", "text": "good luck <b>all</b>"},
    }
    for ws in (sender, player, spectator):
        assert await ws.receive_json_from() == expected
    assert await elsewhere.receive_nothing()
    for ws in (sender, player, spectator, elsewhere):
        await ws.disconnect()


async def test_only_signed_in_players_chat(tables):
    spectator, other = await join("chat1"), await join("chat1")
    await spectator.send_json_to({"type": "chat", "text": "hello"})
    await refused(spectator, "chat_sign_in")
    assert await other.receive_nothing()
    await spectator.disconnect()
    await other.disconnect()


@pytest.mark.parametrize("text", ["", "   \n\t ", "\x00\x07", "x" * (CHAT_MAX_LENGTH + 1), 42, None, ["hi"], {"t": 1}])
async def test_a_message_is_one_line_of_1_to_200_characters(tables, alice, text):
    sender, other = await join("chat1", alice), await join("chat1")
    await sender.send_json_to({"type": "chat", "text": text})
    await refused(sender, "chat_invalid")
    assert await other.receive_nothing()
    await sender.send_json_to({"type": "ping"})
    assert (await sender.receive_json_from())["type"] == "pong"
    await sender.disconnect()
    await other.disconnect()


async def test_a_message_of_200_characters_goes_through(tables, alice):
    sender = await join("chat1", alice)
    await sender.send_json_to({"type": "chat", "text": "é" * CHAT_MAX_LENGTH})
    assert (await sender.receive_json_from())["data"]["text"] == "é" * CHAT_MAX_LENGTH
    await sender.disconnect()


async def test_one_message_a_second_per_player_across_connections(tables, alice, bob):
    first, second, other = await join("chat1", alice), await join("chat2", alice), await join("chat1", bob)
    await first.send_json_to({"type": "chat", "text": "one"})
    assert (await first.receive_json_from())["data"]["text"] == "one"
    assert (await other.receive_json_from())["data"]["text"] == "one"
    await second.send_json_to({"type": "chat", "text": "two, too soon"})
    await refused(second, "chat_too_fast")
    await other.send_json_to({"type": "chat", "text": "bob is not held back"})
    assert (await other.receive_json_from())["data"]["user"] == "bo***"
    assert (await first.receive_json_from())["data"]["user"] == "bo***"
    await asyncio.sleep(1.1)
    await second.send_json_to({"type": "chat", "text": "three"})
    assert (await second.receive_json_from())["data"]["text"] == "three"
    for ws in (first, second, other):
        await ws.disconnect()


async def test_a_message_nested_too_deep_is_refused_and_the_connection_lives_on(tables, alice):
    ws = await join("chat1", alice)
    await ws.send_to(text_data="[" * 2000 + "]" * 2000)
    await refused(ws, "bad_message")
    await ws.send_json_to({"type": "chat", "text": "still here"})
    assert (await ws.receive_json_from())["data"]["text"] == "still here"
    await ws.disconnect()
