"""A web process cut off from Redis lets its sockets go, a few at a time, so that its players move to a host that
still hears the live events.

Its ``/healthz`` answers 404 meanwhile (``kernel.health``): the balancer sends it no new connection and keeps
the open ones (``deploy/haproxy.cfg``: ``http-check disable-on-404``), which this process closes itself over
``SHED_SECONDS``, in random order, a slice every ``SHED_EVERY_SECONDS`` (close code 1012, "service restart":
the page reconnects). Closed all at once, a thousand players landed on the other host in the same instant,
each connect waiting behind the rest (docs/deployment.md, "The test bed"). A socket that reaches this process
while it finds Redis lost is refused before its handshake, or let go as it opens if its connect was let in
just before (the page tries again, through the balancer).
Every socket open when Redis was lost is let go, even if Redis answers again meanwhile: the events sent
while it was away never reached them, and a reconnect brings a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from collections.abc import Coroutine
from typing import Any, Protocol

from django.conf import settings

from kernel.redis_watch import redis_lost, redis_watch_start

logger = logging.getLogger(__name__)

SHED_SECONDS = 8.0
SHED_EVERY_SECONDS = 0.5
SERVICE_RESTART = 1012  # RFC 6455: the client should reconnect


class Closable(Protocol):
    async def close(self, code: int | None = None) -> None: ...


# This process's open sockets, by event loop (a uvicorn worker's one; each test's own), changed on the loops and
# read from the watch's thread: under the lock.
_open: dict[asyncio.AbstractEventLoop, set[Closable]] = {}
_open_lock = threading.Lock()


def sockets_shedding_start() -> None:
    """In a web process at its start (``casino.asgi``): its watch over Redis, with REDIS_URL (none on the
    embedded default), which lets this process's sockets go when it finds Redis lost."""
    if settings.REDIS_URL:
        redis_watch_start(url=settings.REDIS_URL, on_lost=sockets_shed_all)


def socket_opened(socket: Closable) -> None:
    """``socket`` is open on the running loop: let go when the process finds Redis lost (at once if it was found
    lost since its connect was let in)."""
    loop = asyncio.get_running_loop()
    with _open_lock:
        _open.setdefault(loop, set()).add(socket)
    if redis_lost():
        _task_kept(_close(socket))


def socket_closed(socket: Closable) -> None:
    loop = asyncio.get_running_loop()
    with _open_lock:
        sockets = _open.get(loop)
        if sockets is not None:
            sockets.discard(socket)
            if not sockets:
                del _open[loop]


def sockets_shed_all() -> None:
    """Let every open socket of the process go over ``SHED_SECONDS`` (from any thread: the watch's)."""
    with _open_lock:
        open_now = [(loop, list(sockets)) for loop, sockets in _open.items()]
    for loop, sockets in open_now:
        try:
            loop.call_soon_threadsafe(_shed_start, sockets)
        except RuntimeError:  # that loop closed meanwhile (a test's): its sockets went with it
            with _open_lock:
                _open.pop(loop, None)


def _shed_start(sockets: list[Closable]) -> None:
    _task_kept(sockets_shed(sockets, over=SHED_SECONDS))


_running: set[asyncio.Task] = set()  # the shedding's tasks (the loop keeps only weak references)


def _task_kept(work: Coroutine[Any, Any, None]) -> None:
    task = asyncio.get_running_loop().create_task(work)
    _running.add(task)
    task.add_done_callback(_running.discard)


async def sockets_shed(sockets: list[Closable], *, over: float) -> None:
    """Close ``sockets`` in random slices, one every ``SHED_EVERY_SECONDS`` over ``over`` seconds. Each close is
    a task of its own: a client that reads nothing holds its own close up (until its pings go unanswered), never
    the others'."""
    random.shuffle(sockets)
    slices = max(1, round(over / SHED_EVERY_SECONDS))
    closing = []
    for number in range(slices):
        closing += [asyncio.create_task(_close(socket)) for socket in sockets[number::slices]]
        if number < slices - 1:
            await asyncio.sleep(SHED_EVERY_SECONDS)
    await asyncio.gather(*closing)


async def _close(socket: Closable) -> None:
    try:
        await socket.close(code=SERVICE_RESTART)
    except Exception:  # closed meanwhile by its client: nothing to let go
        logger.debug("a socket shed was already closed", exc_info=True)
