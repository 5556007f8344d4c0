"""A web process cut off from Redis lets its sockets go a few at a time and refuses new ones until Redis answers
again (``kernel.socket_shedding``; issue 33, scenario 3); its watch finds Redis lost only after two PINGs in a
row unanswered (``kernel.redis_watch``)."""

from __future__ import annotations

import asyncio
import random

import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from casino.asgi import application
from kernel import redis_watch, socket_shedding
from kernel.redis_watch import RedisWatch
from kernel.socket_shedding import SERVICE_RESTART, sockets_shed
from tables.services import table_create
from tests.loops import in_a_loop_of_its_own

ORIGIN = (b"origin", b"http://127.0.0.1")


def test_redis_is_lost_after_two_pings_in_a_row_unanswered_and_each_loss_told_once():
    answers = iter([True, False, True, False, False, False, True, False, False])
    watch = RedisWatch(reachable=lambda: next(answers))
    losses = []
    watch.listeners.append(lambda: losses.append(watch.unanswered))
    found = []
    for _ in range(9):
        watch.check()
        found.append(watch.lost)
    assert found == [False, False, False, False, True, True, False, False, True]
    assert losses == [2, 2]  # told at the second PING unanswered of each loss, not at the third


def test_a_lost_redis_is_asked_four_times_as_often_so_that_its_return_is_found_at_once(monkeypatch):
    """Redis restarted is away from every host: the sooner each finds it back, the sooner the balancer takes
    new sockets again (a crowd let go meanwhile retries against none)."""
    answers = iter([True, False, False, False, True, True])
    watch = RedisWatch(reachable=lambda: next(answers))
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        pauses.append(round(seconds, 2))
        if len(pauses) == 6:
            raise KeyboardInterrupt  # out of the watch's endless loop (the only exception it lets through)

    monkeypatch.setattr(redis_watch.time, "sleep", sleep)
    with pytest.raises(KeyboardInterrupt):
        watch.run(every=1.0, every_while_lost=0.25)
    assert pauses == [1.0, 1.0, 0.25, 0.25, 1.0, 1.0]  # lost at the second PING unanswered, found at the next


class FakeSocket:
    def __init__(self, name: int, slices: list[float], stuck: dict, *, gone: bool = False):
        self.name, self.slices, self.stuck, self.gone = name, slices, stuck, gone
        self.closed: list[tuple[int, int]] = []  # (code, the slice it was closed in)

    async def close(self, code: int | None = None) -> None:
        if self.gone:
            raise RuntimeError("already closed by its client")
        if self.stuck.setdefault("socket", self) is self:  # the first one closed: a client that reads nothing,
            await self.stuck["until"].wait()  # its close waiting (on its pings' timeout)
        self.closed.append((code, len(self.slices)))


def test_sockets_are_let_go_in_random_slices_over_the_time_given(monkeypatch):
    in_a_loop_of_its_own(lambda: sockets_let_go_in_random_slices(monkeypatch))


async def sockets_let_go_in_random_slices(monkeypatch) -> None:
    real_sleep = asyncio.sleep
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        await real_sleep(0)  # the slice's closes run
        slept.append(seconds)

    monkeypatch.setattr(socket_shedding.asyncio, "sleep", sleep)
    random.seed(7)
    stuck = {"until": asyncio.Event()}
    sockets = [FakeSocket(n, slept, stuck, gone=n == 3) for n in range(20)]
    shedding = asyncio.create_task(sockets_shed(list(sockets), over=2.0))
    for _ in range(10):
        await real_sleep(0)
    assert slept == [socket_shedding.SHED_EVERY_SECONDS] * 3  # four slices, half a second apart
    assert not shedding.done() and stuck["socket"].closed == []  # the stuck close held up none of the others
    stuck["until"].set()
    await shedding
    assert all(socket.closed == [] for socket in sockets if socket.gone)  # its failure stopped none of the others
    closing = [socket for socket in sockets if not socket.gone]
    assert all(len(socket.closed) == 1 and socket.closed[0][0] == SERVICE_RESTART for socket in closing)
    by_slice = [
        sorted(s.name for s in closing if s.closed[0][1] == number and s is not stuck["socket"]) for number in range(4)
    ]
    sizes = [len(names) for names in by_slice]  # five a slice, less the stuck one and the one gone
    assert sum(sizes) == 18 and all(3 <= size <= 5 for size in sizes)
    assert by_slice != [list(range(start, 20, 4)) for start in range(4)]  # shuffled: not the order they came in


@pytest.fixture
def watch(settings, monkeypatch):
    """This process's watch over Redis, as the thread runs it, answering as the test says."""
    settings.REDIS_URL = ""  # no real watch started by the sockets (the layer is the in-memory one)
    answering = {"now": True}
    fake = RedisWatch(reachable=lambda: answering["now"])
    fake.listeners.append(socket_shedding.sockets_shed_all)
    monkeypatch.setattr(redis_watch, "_watch", fake)
    monkeypatch.setattr(socket_shedding, "SHED_SECONDS", 1.0)

    def answers(now: bool) -> None:
        answering["now"] = now
        for _ in range(fake.lost_after):
            fake.check()

    fake.answers, fake.answering = answers, answering
    return fake


async def join(code: str, address: str) -> WebsocketCommunicator:
    ws = WebsocketCommunicator(application, f"/ws/tables/{code}/", headers=[ORIGIN])
    ws.scope["client"] = (address, 50000)
    connected, _ = await ws.connect()
    assert connected
    assert (await ws.receive_json_from())["type"] == "snapshot"
    return ws


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")
async def test_a_process_that_finds_redis_lost_lets_its_sockets_go_and_refuses_new_ones_until_it_answers(watch):
    boss = await asyncio.to_thread(get_user_model().objects.create_user, username="boss")
    table = await asyncio.to_thread(table_create, code="shed1", name="Shed 1", actor=boss)
    sockets = [await join(table.code, f"203.0.113.{number}") for number in range(4)]
    watch.answers(False)
    for ws in sockets:
        assert await ws.receive_output(timeout=5) == {"type": "websocket.close", "code": SERVICE_RESTART}
    refused = WebsocketCommunicator(application, f"/ws/tables/{table.code}/", headers=[ORIGIN])
    connected, _ = await refused.connect()
    assert not connected  # refused before the handshake: the page tries again through the balancer
    watch.answers(True)
    again = await join(table.code, "203.0.113.9")
    await again.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")
async def test_while_redis_is_lost_a_commits_live_events_are_dropped_not_waited_on(watch):
    from channels.layers import get_channel_layer

    from kernel import live

    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("table.shed2", channel)
    event = [("table.shed2", live.live_message({"type": "result"}), None)]
    watch.answers(False)
    await asyncio.to_thread(live._send_now, event)
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(layer.receive(channel), 0.2)
    watch.answers(True)
    await asyncio.to_thread(live._send_now, event)
    assert (await asyncio.wait_for(layer.receive(channel), 2))["type"] == "live.event"


def test_a_send_waiting_on_a_redis_that_does_not_answer_is_given_up_once_redis_is_found_lost(
    watch, settings, silent_redis
):
    import threading
    import time

    from kernel import live

    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer", "CONFIG": {"hosts": [silent_redis]}}
    }
    started = time.monotonic()
    threading.Timer(0.5, watch.answers, args=(False,)).start()
    live._send_now([("table.shed3", live.live_message({"type": "result"}), None)])
    assert time.monotonic() - started < live.PUBLISH_TIMEOUT_SECONDS - 1  # not the whole timeout


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")
async def test_a_socket_let_go_is_closed_once_and_sent_nothing_more_before_its_disconnect(watch):
    boss = await asyncio.to_thread(get_user_model().objects.create_user, username="boss")
    table = await asyncio.to_thread(table_create, code="shed4", name="Shed 4", actor=boss)
    ws = await join(table.code, "203.0.113.4")
    (consumer,) = socket_shedding._open[asyncio.get_running_loop()]
    await consumer.close(code=SERVICE_RESTART)
    await consumer.table_event('{"type": "result"}')  # heard before its disconnect: not written to a closed socket
    await consumer.close(code=SERVICE_RESTART)  # let go twice (shed, then its own close): one close
    assert await ws.receive_output(timeout=2) == {"type": "websocket.close", "code": SERVICE_RESTART}
    assert await ws.receive_nothing(timeout=0.2)


@pytest.mark.django_db
def test_a_web_process_answers_its_health_check_as_its_watch_finds_redis(watch, client):
    """404 (the balancer's soft stop) only once the watch finds Redis lost: one PING unanswered takes no host out."""
    watch.answering["now"] = False
    watch.check()
    assert client.get("/healthz").status_code != 404
    watch.check()
    assert client.get("/healthz").status_code == 404
    watch.answers(True)
    assert client.get("/healthz").status_code != 404


@pytest.mark.django_db
def test_a_check_made_as_redis_goes_before_the_watch_finds_it_lost_answers_and_takes_no_host_out(
    watch, client, settings, silent_redis
):
    """Its count of the database's reach (in Redis) is not made: an error there would fail the check, and two
    failed checks mark the host down, closing its sockets all at once."""
    settings.REDIS_URL = silent_redis
    assert client.get("/healthz").status_code == 200


def test_a_socket_opening_after_redis_was_found_lost_is_let_go_at_once(watch):
    """Its connect was let in just before: it hears no live event, so it goes as it opens."""

    async def scenario() -> None:
        socket = FakeSocket(1, [], {"socket": None})
        watch.answers(False)
        socket_shedding.socket_opened(socket)
        for _ in range(3):
            await asyncio.sleep(0)
        socket_shedding.socket_closed(socket)
        assert socket.closed == [(SERVICE_RESTART, 0)]

    in_a_loop_of_its_own(scenario)
