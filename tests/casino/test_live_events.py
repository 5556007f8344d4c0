"""Live events on their way to the browsers: serialised once by their sender and forwarded as they are;
on Redis, a deployment hears only the events sent on its own Redis database."""

import asyncio
import json
import os
import subprocess
import sys

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from casino.asgi import application
from kernel import live as events
from kernel.live import EventsBuiltOnDemand, table_event_send, user_events_send, user_group
from tables.services import table_create

pytestmark = pytest.mark.django_db(transaction=True)

PUBLISH = """
import sys, django
django.setup()
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from kernel.live import table_group, live_message
event = {"type": "chat", "version": 1, "table": sys.argv[1], "data": {"user": "elsewhere", "text": sys.argv[2]}}
async_to_sync(get_channel_layer().group_send)(table_group(sys.argv[1]), live_message(event))
"""


@pytest.fixture
def table(db):
    boss = get_user_model().objects.create_user(username="boss")
    return table_create(code="wire1", name="Wire 1", actor=boss)


async def connected(code: str) -> WebsocketCommunicator:
    ws = WebsocketCommunicator(application, f"/ws/tables/{code}/", headers=[(b"origin", b"http://127.0.0.1")])
    connected, _ = await ws.connect()
    assert connected
    assert (await ws.receive_json_from(timeout=5))["type"] == "snapshot"
    return ws


async def test_an_event_reaches_the_browser_as_the_json_its_sender_wrote(settings, table):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    ws = await connected(table.code)
    data = {"round_id": "WIRE1-1", "banker": "25.00", "note": 'café ✓ "quoted"'}

    @database_sync_to_async
    def send() -> None:
        with transaction.atomic():
            table_event_send(table_code=table.code, event_type="bet_totals", data=data)

    await send()
    frame = await ws.receive_from(timeout=5)
    assert frame == json.dumps({"type": "bet_totals", "version": 1, "table": "wire1", "data": data})
    assert json.loads(frame)["data"]["note"] == 'café ✓ "quoted"'
    assert await ws.receive_nothing()
    await ws.disconnect()


def publish_from_another_process(redis_url: str, code: str, text: str) -> None:
    env = {**os.environ, "REDIS_URL": redis_url, "DJANGO_SETTINGS_MODULE": "casino.settings"}
    env.pop("DATABASE_URL", None)
    done = subprocess.run([sys.executable, "-c", PUBLISH, code, text], env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()


@pytest.mark.redis
@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (the channels_redis layer)")
async def test_only_events_on_the_same_redis_database_reach_the_sockets(table):
    ws = await connected(table.code)
    database = int(settings.REDIS_URL.rsplit("/", 1)[1] or 0)
    other = settings.REDIS_URL.rsplit("/", 1)[0] + f"/{(database + 1) % 16}"
    await asyncio.to_thread(publish_from_another_process, other, table.code, "another deployment")
    assert await ws.receive_nothing(timeout=1)
    await asyncio.to_thread(publish_from_another_process, settings.REDIS_URL, table.code, "this deployment")
    event = await ws.receive_json_from(timeout=10)
    assert (event["type"], event["data"]["text"]) == ("chat", "this deployment")
    await ws.disconnect()


@pytest.mark.redis
@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (the channels_redis layer)")
async def test_a_process_publishes_every_commit_through_one_loop_and_connection(table, monkeypatch):
    """A table loop or a Celery worker has no event loop of its own: its commits share one publisher
    loop (and so one Redis connection) for the process's life, and a forked child starts its own."""
    ws = await connected(table.code)

    @database_sync_to_async
    def commit(text: str) -> None:
        with transaction.atomic():
            table_event_send(table_code=table.code, event_type="chat", data={"user": "dealer", "text": text})

    loops = []
    for text in ("first", "second"):
        await commit(text)
        assert (await ws.receive_json_from(timeout=10))["data"]["text"] == text
        loops.append(events._publisher_loop())
    assert loops[0] is loops[1] and loops[0].is_running()
    monkeypatch.setattr(events, "_publisher", events._publisher)  # the process's own, back after the test
    monkeypatch.setattr(events.os, "getpid", lambda: -1)  # as in a forked child
    assert events._publisher_loop() is not loops[0]
    await ws.disconnect()


@pytest.mark.redis
@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (the channels_redis layer)")
async def test_events_built_on_demand_are_built_only_for_players_listening(db):
    """A settlement's players' events are built and serialised only for the players with a socket: the
    one listening gets theirs, as written; nobody else's is even worked out."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(user_group(7001), channel)
    built = []

    def build(user_id: int) -> dict:
        built.append(user_id)
        return {"round_id": "WIRE1-2", "returned": f"{user_id}.00"}

    @database_sync_to_async
    def settle() -> None:
        with transaction.atomic():
            user_events_send(event_type="settlement", data_by_user=EventsBuiltOnDemand([7001, 7002, 7003], build))
        assert built == [7001]

    await settle()
    message = await asyncio.wait_for(layer.receive(channel), timeout=10)
    assert json.loads(message["text"]) == {
        "type": "settlement",
        "version": 1,
        "data": {"round_id": "WIRE1-2", "returned": "7001.00"},
    }
    await layer.group_discard(user_group(7001), channel)
