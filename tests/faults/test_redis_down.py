"""Redis gone for a while (a redis-server of the test's own, killed, then started again): bets and dealing
go on, the database being the truth; live pushes resume with Redis; a browser reconnecting catches up
from the snapshot; the coups played meanwhile are settled once the broker is back."""

from __future__ import annotations

import asyncio
import os
import socket
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connections
from django.utils import timezone
from redis.exceptions import ConnectionError as RedisConnectionError

from casino.asgi import application
from tables.models import Coup
from tables.services import table_close
from tests.processes import Process, wait_until
from wagering.checks import ledger_check, settlement_check
from wagering.models import Bet
from wagering.placement import bet_batch_place

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]
ORIGIN = [(b"origin", b"http://127.0.0.1")]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A throw-away redis-server: no persistence, so a restart starts empty (as a lost node)."""

    def __init__(self) -> None:
        self.port = free_port()
        # The test Redis's database number: names derived from REDIS_URL (the channel prefix) stay the same.
        self.url = f"redis://127.0.0.1:{self.port}/{settings.REDIS_URL.rsplit('/', 1)[-1]}"
        self.process: Process | None = None

    def start(self) -> None:
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = Process(args, env=dict(os.environ))
        self.process.wait_for_line("Ready to accept connections", timeout=30)

    def kill(self) -> None:
        self.process.kill()


@pytest.fixture
def redis_server():
    server = RedisServer()
    server.start()
    yield server
    server.kill()


@pytest.fixture
def live_layer(settings, redis_server):
    """This process's channel layer on the throw-away Redis too (as configured, but for the address)."""
    layer = settings.CHANNEL_LAYERS["default"]
    settings.CHANNEL_LAYERS = {"default": {**layer, "CONFIG": {**layer["CONFIG"], "hosts": [redis_server.url]}}}


async def browser_connects(code: str) -> WebsocketCommunicator:
    """Connect as live.js does: a connection that fails or is not answered in time (Redis just back, a stale
    pooled connection, the channel layer's subscriber reconnecting) is made again after a pause. The RuntimeError
    is channels_redis's pub/sub race just after a reconnection: the subscribe and the layer's receiving task both
    read the one pub/sub connection ("read() called while another coroutine is already waiting"); the socket
    fails and the next one subscribes on the repaired connection."""
    for _ in range(5):
        browser = WebsocketCommunicator(application, f"/ws/tables/{code}/", headers=ORIGIN)
        try:
            if (await browser.connect(timeout=5))[0]:
                return browser
        except (RedisConnectionError, TimeoutError, RuntimeError):
            await asyncio.sleep(0.5)
    raise AssertionError("the browser could not connect again")


async def next_event(ws: WebsocketCommunicator, wanted: str) -> dict:
    while True:
        event = await ws.receive_json_from(timeout=30)
        if event["type"] == wanted:
            return event


def coups_resolved() -> int:
    return Coup.objects.filter(state__in=[Coup.State.RESOLVED, Coup.State.SETTLED]).count()


def bet_on_the_open_coup(players) -> int:
    """Every player bets on the coup now open (once); the number of bets placed."""
    open_long_enough = Coup.objects.filter(state=Coup.State.BETTING, bets__isnull=True)
    open_long_enough = open_long_enough.filter(betting_closes_at__gt=timezone.now() + timedelta(seconds=1))
    wait_until(open_long_enough.exists, what="a coup open for betting")
    coup = open_long_enough.get()
    for player in players:
        bet_batch_place(user=player, coup=coup, bets={"player": "5.00"})
    return len(players)


async def test_bets_and_dealing_go_on_without_redis_and_pushes_resume(
    processes, redis_server, live_layer, fault_table, players
):
    processes.worker(REDIS_URL=redis_server.url)
    table_loop = processes.loop(fault_table.code, REDIS_URL=redis_server.url)
    browser = await browser_connects(fault_table.code)
    assert (await browser.receive_json_from(timeout=10))["type"] == "snapshot"
    await next_event(browser, "card")  # pushed through Redis from the loop's process
    await browser.disconnect()

    redis_server.kill()
    before = await sync_to_async(coups_resolved)()
    placed = 0
    for _ in range(2):  # bets are taken and coups dealt and resolved with Redis down
        placed += await sync_to_async(bet_on_the_open_coup)(players)
        resolved = before + placed // len(players)
        await sync_to_async(wait_until)(lambda resolved=resolved: coups_resolved() >= resolved, what="a coup resolved")
    assert await sync_to_async(Bet.objects.count)() == placed
    assert table_loop.popen.poll() is None

    redis_server.start()
    browser = await browser_connects(fault_table.code)
    snapshot = (await browser.receive_json_from(timeout=10))["data"]
    assert snapshot["roads"]["stats"]["coups"] >= await sync_to_async(coups_resolved)() - 1  # the coups missed
    await next_event(browser, "card")  # live again
    await browser.disconnect()

    await sync_to_async(wait_until)(  # settled once the broker is back (the loop sends the lost tasks again)
        lambda: not Bet.objects.filter(state=Bet.State.ACCEPTED, coup__state=Coup.State.RESOLVED).exists(),
        what="the coups played without Redis settled",
    )
    await sync_to_async(table_close)(table=fault_table, reason="no further coup")
    await sync_to_async(wait_until)(
        lambda: not Coup.objects.exclude(state__in=[Coup.State.SETTLED, Coup.State.VOID]).exists(), what="done"
    )
    assert table_loop.stop() == 0, table_loop.log()
    check = await sync_to_async(settlement_check)()
    assert check.problems == []
    assert check.bets == {Bet.State.SETTLED: placed}
    assert (await sync_to_async(ledger_check)()).ok
    await sync_to_async(connections.close_all)()  # back to the pool before the test database goes
