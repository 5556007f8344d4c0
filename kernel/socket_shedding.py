"""A web process cut off from Redis lets its sockets go, a few at a time, so that its players move to a host that
still hears the live events.

Its ``/healthz`` answers 404 meanwhile (``kernel.health``): the balancer sends it no new connection and keeps
the open ones (``deploy/haproxy.cfg``: ``http-check disable-on-404``), which this process closes itself over
``SHED_SECONDS``, in random order, a slice every ``SHED_EVERY_SECONDS`` (close code 1012, "service restart":
the page reconnects). Closed all at once, a thousand players landed on the other host in the same instant,
each connect waiting behind the rest (docs/deployment.md, "The test bed"). A socket that reaches this process
while it finds Redis lost is refused before its handshake (the page tries again, through the balancer).
Every socket open when Redis was lost is let go, even if Redis answers again meanwhile: the events sent
while it was away never reached them, and a reconnect brings a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import logging
import random
import weakref
from typing import Protocol

from django.conf import settings

from kernel.redis_watch import redis_lost, redis_watch_start

logger = logging.getLogger(__name__)

SHED_SECONDS = 8.0
SHED_EVERY_SECONDS = 0.5
SERVICE_RESTART = 1012  # RFC 6455: the client should reconnect


class Closable(Protocol):
    async def close(self, code: int | None = None) -> None: ...


# This process's open sockets, by event loop (a uvicorn worker's one; each test's own).
_open: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, set[Closable]] = weakref.WeakKeyDictionary()


def socket_opened(socket: Closable) -> None:
    """``socket`` is open on the running loop: let go when the process finds Redis lost."""
    _open.setdefault(asyncio.get_running_loop(), set()).add(socket)
    if settings.REDIS_URL:
        redis_watch_start(url=settings.REDIS_URL, on_lost=sockets_shed_all)


def socket_closed(socket: Closable) -> None:
    _open.get(asyncio.get_running_loop(), set()).discard(socket)


def sockets_refused() -> bool:
    """True while a new socket is better served by another host (this process finds Redis lost)."""
    return redis_lost()


def sockets_shed_all() -> None:
    """Let every open socket of the process go over ``SHED_SECONDS`` (from any thread: the watch's)."""
    for loop, sockets in list(_open.items()):
        if sockets and not loop.is_closed():
            loop.call_soon_threadsafe(_shed_start, list(sockets))


def _shed_start(sockets: list[Closable]) -> None:
    task = asyncio.get_running_loop().create_task(sockets_shed(sockets, over=SHED_SECONDS), name="sockets shed")
    _shedding.add(task)
    task.add_done_callback(_shedding.discard)


_shedding: set[asyncio.Task] = set()  # the tasks running (the loop keeps only weak references)


async def sockets_shed(sockets: list[Closable], *, over: float) -> None:
    """Close ``sockets`` in random slices, one every ``SHED_EVERY_SECONDS`` over ``over`` seconds."""
    random.shuffle(sockets)
    slices = max(1, round(over / SHED_EVERY_SECONDS))
    for number in range(slices):
        for socket in sockets[number::slices]:
            try:
                await socket.close(code=SERVICE_RESTART)
            except Exception:  # closed meanwhile by its client: nothing to let go
                logger.debug("a socket shed was already closed", exc_info=True)
        if number < slices - 1:
            await asyncio.sleep(SHED_EVERY_SECONDS)
