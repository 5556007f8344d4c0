"""One member of a table's group per process: each live event to the table read once from the channel
layer and written to every socket of the table in this process.

With every socket a member of the table's group, an event to 5,000 sockets is 5,000 queue puts, task
wake-ups and dispatches, about 100 µs of CPU each (``bench/fanout.py``). Here the process's sockets on
a table register with one channel of the group, whose reader writes the event to each of them directly.
Events to one player (their wallet, their bets) still go to the socket's own channel.

The same member shares the table's snapshot among the process's sockets (``table_shared``): a crowd that
reconnects at once (a web host taken out, a restart) reads it from the database once, not once a socket.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable
from time import monotonic
from typing import Any, Protocol

from channels.layers import BaseChannelLayer

logger = logging.getLogger(__name__)


class TableListener(Protocol):
    async def table_event(self, text: str) -> None:
        """Forward the event (serialised once by its sender, ``kernel.live.live_message``)."""


class _Table:
    def __init__(self) -> None:
        self.listeners: set[TableListener] = set()
        self.channel: str | None = None
        self.reader: asyncio.Task | None = None
        self.lock = asyncio.Lock()
        self.events = 0  # read since the process subscribed: a shared snapshot is valid for one count
        self.shared: tuple[int, float, asyncio.Future] | None = None  # (events, until, the snapshot's build)


# By event loop (a test's loop, or a worker's one), then by group.
_tables: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _Table]] = weakref.WeakKeyDictionary()


def _table(group: str) -> _Table:
    return _tables.setdefault(asyncio.get_running_loop(), {}).setdefault(group, _Table())


async def table_join(*, layer: BaseChannelLayer, group: str, listener: TableListener) -> None:
    """From now on, the group's live events reach ``listener`` (the first listener subscribes the process)."""
    table = _table(group)
    async with table.lock:
        table.listeners.add(listener)
        if table.reader is None or table.reader.done():
            table.shared = None  # built while the process heard nothing of the table (its reader had ended)
            table.channel = await layer.new_channel(prefix="tablecast")
            await layer.group_add(group, table.channel)
            table.reader = asyncio.create_task(_read(layer, table), name=f"tablecast {group}")


async def table_leave(*, layer: BaseChannelLayer, group: str, listener: TableListener) -> None:
    """``listener`` no longer gets the group's events (the last one unsubscribes the process)."""
    table = _table(group)
    async with table.lock:
        table.listeners.discard(listener)
        if table.listeners or table.reader is None:
            return
        reader, channel = table.reader, table.channel
        table.reader = table.channel = None
        table.shared = None  # the events to come go unread: nothing built now may be shared later
        reader.cancel()
        await layer.group_discard(group, channel)


async def _read(layer: BaseChannelLayer, table: _Table) -> None:
    while True:
        message = await layer.receive(table.channel)
        if message.get("type") != "live.event":
            continue
        table.events += 1
        for listener in list(table.listeners):
            try:
                await listener.table_event(message["text"])
            except OSError:  # its client gone (uvicorn's ClientDisconnected): its disconnect is on the way
                pass  # not logged: a crowd's close logged 24,000 tracebacks in one bed run, using the CPU it needed
            except Exception:  # one socket gone wrong must not keep the event from the others
                logger.exception("a table event not forwarded to one socket")


async def table_shared(*, group: str, build: Callable[[], Awaitable[Any]], seconds: float) -> Any:
    """What ``build()`` gives (the table's snapshot), shared by the process's listeners of the group: built
    after the last event this process read of the table, at most ``seconds`` ago (for a change that sends no
    event), else built again. Only for a listener already joined: an event it came after is held for it, the
    snapshot built before that event, so nothing is missed. Read-only for its users: it is everyone's."""
    table = _table(group)
    now = monotonic()
    if table.shared is not None:
        events, until, build_shared = table.shared
        if events == table.events and now < until:
            return await asyncio.shield(build_shared)
    built = asyncio.ensure_future(build())  # its own task: a socket closed meanwhile does not cancel the others'
    table.shared = (table.events, now + seconds, built)
    try:
        return await asyncio.shield(built)
    except Exception:
        if table.shared is not None and table.shared[2] is built:
            table.shared = None  # a failed read (the database away) is not kept: the next socket tries again
        raise
