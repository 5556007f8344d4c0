"""Across processes on Redis: a table loop in another process publishes, this process's consumer delivers."""

import subprocess
import sys
import time

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import get_user_model

from casino.asgi import application
from tables.services import table_create, table_open
from tests.processes import subprocess_env

pytestmark = [
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (the channels_redis layer)"),
    pytest.mark.skipif(
        not settings.USING_POSTGRES, reason="needs PostgreSQL: the publisher process shares the test database"
    ),
]


async def test_a_table_loop_in_another_process_reaches_this_consumer():
    from channels.db import database_sync_to_async

    @database_sync_to_async
    def open_table():
        boss = get_user_model().objects.create_user(username="boss")
        table = table_create(code="xproc", name="Cross process", actor=boss, betting_seconds=1)
        table_open(table=table, actor=boss)

    await open_table()
    ws = WebsocketCommunicator(application, "/ws/tables/xproc/", headers=[(b"origin", b"http://127.0.0.1")])
    connected, _ = await ws.connect()
    assert connected
    assert (await ws.receive_json_from(timeout=5))["type"] == "snapshot"
    publisher = subprocess.Popen(
        [sys.executable, "manage.py", "run_table", "xproc", "--coups", "1"],
        env=subprocess_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        seen = []
        deadline = time.monotonic() + 60
        while "roads" not in seen and time.monotonic() < deadline:
            seen.append((await ws.receive_json_from(timeout=30))["type"])
        assert publisher.wait(timeout=30) == 0, publisher.stderr.read().decode()
    finally:
        publisher.kill()
        await ws.disconnect()
    assert seen[:3] == ["shoe_change", "betting_open", "no_more_bets"]
    assert seen.count("card") >= 4 and seen[-2:] == ["result", "roads"]
