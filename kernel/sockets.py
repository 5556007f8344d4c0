"""What every live socket of ours shares: the abuse limits, and following tables' live events.

Client messages are JSON objects with a string ``type``, of at most ``MAX_MESSAGE_BYTES``; anything else gets
one ``error`` message and changes nothing. A frame over ``WS_MAX_FRAME_BYTES`` closes the socket with 1009
(the servers refuse it first: ``--ws-max-size``). A user (or an anonymous address) holds at most
``WS_MAX_CONNECTIONS_PER_USER`` (``..._PER_ADDRESS``) sockets, the next one being closed with 4429: each
socket holds a numbered slot in the shared cache (Redis with ``REDIS_URL``, this process's memory on the
embedded default), taken with an atomic add and kept alive while the socket lives, so the count holds across
processes, and a process that dies without closing its sockets frees their slots when they expire.

A table's snapshot is read once for all the sockets of a process that connect between two of the table's
events, within ``SNAPSHOT_SHARED_SECONDS`` (``kernel.table_broadcast.table_shared``): a reconnecting crowd
costs a connect each, not a snapshot each.

A process cut off from Redis lets its sockets go a few at a time and refuses new ones
(``kernel.socket_shedding``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from decimal import Decimal
from typing import TypeVar

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError

from kernel.errors import ErrorCode
from kernel.live import event_envelope, table_group
from kernel.metrics import open_sockets_change
from kernel.redis_watch import redis_lost
from kernel.socket_shedding import socket_closed, socket_opened
from kernel.table_broadcast import table_join, table_leave, table_shared

logger = logging.getLogger(__name__)
T = TypeVar("T")  # what a table's sockets share (``tables_shared``)

MAX_MESSAGE_BYTES = 4096
WS_MAX_FRAME_BYTES = 64 * 1024  # the web servers' --ws-max-size (Procfile, manage.py serve)
MESSAGE_TOO_BIG = 1009
SERVER_ERROR = 1011
NOT_FOUND = 4404
REFUSED = 4403  # a socket that cannot be what it asked for (the multi-table socket's tables): not retried
TOO_MANY_CONNECTIONS = 4429
SNAPSHOT_BURST = 3  # snapshot requests a socket may make at once, then one a second
SNAPSHOTS_PER_SECOND = 1
SNAPSHOT_SHARED_SECONDS = 2.0  # what a change sending no event (a table renamed) takes to reach new sockets
SLOT_SECONDS = 60
KEEP_EVERY_SECONDS = SLOT_SECONDS / 3


def connection_owner(scope: dict) -> tuple[str, int]:
    """Who a socket counts against, and their limit (0: no limit)."""
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}", settings.WS_MAX_CONNECTIONS_PER_USER
    address = (scope.get("client") or ("unknown",))[0]
    return f"address:{address}", settings.WS_MAX_CONNECTIONS_PER_ADDRESS


async def connection_slot_take(*, owner: str, limit: int, channel_name: str) -> str | None:
    """A free slot of the owner's, now this socket's; None when all ``limit`` are taken."""
    for number in range(limit):
        key = f"ws-slot:{owner}:{number}"
        if await cache.aadd(key, channel_name, timeout=SLOT_SECONDS):
            return key
    return None


async def connection_slot_keep(*, key: str, channel_name: str) -> None:
    """Run while the socket lives: keep its slot from expiring (taking it again if it did; Redis away, at the
    next turn)."""
    while True:
        await asyncio.sleep(KEEP_EVERY_SECONDS)
        try:
            if not await cache.atouch(key, SLOT_SECONDS):
                await cache.aadd(key, channel_name, timeout=SLOT_SECONDS)
        except (RedisError, OSError) as error:
            logger.warning("a socket's slot not kept: Redis unreachable (%s)", error)


async def connection_slot_release(*, key: str, channel_name: str) -> None:
    if await cache.aget(key) == channel_name:
        await cache.adelete(key)


class TokenBucket:
    """``burst`` at once, then ``per_second``: a socket's allowance of some kind of message."""

    def __init__(self, *, burst: int, per_second: float) -> None:
        self.burst, self.per_second = burst, per_second
        self.allowance, self.at = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.allowance = min(self.burst, self.allowance + (now - self.at) * self.per_second)
        self.at = now
        if self.allowance < 1:
            return False
        self.allowance -= 1
        return True


class LiveSocket(AsyncWebsocketConsumer):
    """A socket following tables' live events, within the limits above. A subclass's ``connect`` takes a
    connection slot (``connection_slot_taken``), sets its ``snapshots`` allowance and ``follow``s its tables;
    it sends its ``snapshot``s and ``handle``s the client's messages (``ping`` is answered ``pong`` here)."""

    connection_slot: str | None = None
    slot_keeper: asyncio.Task | None = None
    counted = False  # in the open sockets' gauge
    closed_here = False  # closed from the server's end: nothing more is sent on it
    groups_joined: tuple[str, ...] | list[str] = ()  # the user's own events
    tables_joined: tuple[str, ...] | list[str] = ()
    snapshots: TokenBucket

    async def connection_slot_taken(self) -> bool:
        """One of the user's (or address's) sockets; beyond their allowance the socket is closed with 4429."""
        owner, limit = connection_owner(self.scope)
        if not limit:
            return True
        self.connection_slot = await connection_slot_take(owner=owner, limit=limit, channel_name=self.channel_name)
        if self.connection_slot is None:
            await self.accept()  # so that the browser sees the close code
            await self.close(code=TOO_MANY_CONNECTIONS)
            return False
        self.slot_keeper = asyncio.create_task(
            connection_slot_keep(key=self.connection_slot, channel_name=self.channel_name)
        )
        return True

    async def websocket_connect(self, message: dict) -> None:
        """Refused before the handshake while this process finds Redis lost (``kernel.socket_shedding``)."""
        if redis_lost():
            await self.close()
            return
        await super().websocket_connect(message)

    async def follow(self, codes: list[str]) -> None:
        """Join the tables' events, accept, send the snapshot, then the events made meanwhile, in their order."""
        self.held_events: list[str] | None = []  # the tables', until the snapshot is sent (then None)
        self.tables_joined = [table_group(code) for code in codes]
        for group in self.tables_joined:
            await table_join(layer=self.channel_layer, group=group, listener=self)
        await self.accept()
        open_sockets_change(1)
        socket_opened(self)
        self.counted = True
        try:
            await self.send_snapshot()
        except Exception:  # channels would not call disconnect: the slot and the tables would stay taken
            await self.disconnect(SERVER_ERROR)
            await self.close(code=SERVER_ERROR)
            raise
        while self.held_events:
            await self.send(text_data=self.held_events.pop(0))
        self.held_events = None

    async def disconnect(self, code: int) -> None:
        """Leave what the socket joined. With Redis away (the process letting its sockets go) what cannot be left
        there is let be: the slot expires by itself within ``SLOT_SECONDS``."""
        if self.counted:
            open_sockets_change(-1)
            socket_closed(self)
            self.counted = False
        if self.slot_keeper is not None:
            self.slot_keeper.cancel()
        leaving = [table_leave(layer=self.channel_layer, group=group, listener=self) for group in self.tables_joined]
        leaving += [self.channel_layer.group_discard(group, self.channel_name) for group in self.groups_joined]
        if self.connection_slot is not None and not redis_lost():
            leaving.append(connection_slot_release(key=self.connection_slot, channel_name=self.channel_name))
        for leave in leaving:  # each tried, whatever the one before did
            try:
                await leave
            except (RedisError, OSError) as error:
                logger.warning("a closed socket's group or slot not left: Redis unreachable (%s)", error)

    async def close(self, code: int | None = None, reason: str | None = None) -> None:
        """Close from the server's end, once: a socket let go still hears its table until its disconnect."""
        if not self.closed_here:
            self.closed_here = True
            await super().close(code, reason)

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
        """Nothing once closed from the server's end (``close``), even by a send that was waiting to write when
        the close went first."""
        if self.closed_here:
            return
        try:
            await super().send(text_data, bytes_data, close)
        except (RuntimeError, OSError):
            if not self.closed_here:
                raise

    async def send_snapshot(self) -> None:
        raise NotImplementedError

    async def tables_shared(self, codes: list[str], build: Callable[[str], T | None]) -> dict[str, T]:
        """What the process's sockets share of each followed table, by code (``build(code)``, in a thread; None:
        no such table; every socket of a table must build the same kind of thing): read-only, copy to add to it."""
        snapshots = {}
        for code in codes:
            snapshot = await table_shared(
                group=table_group(code),
                build=lambda code=code: database_sync_to_async(build)(code),
                seconds=SNAPSHOT_SHARED_SECONDS,
            )
            if snapshot is not None:
                snapshots[code] = snapshot
        return snapshots

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if len(text_data.encode() if text_data is not None else bytes_data or b"") > WS_MAX_FRAME_BYTES:
            await self.close(code=MESSAGE_TOO_BIG)
            return
        message = _parsed(text_data, bytes_data)
        if isinstance(message, str):
            await self.send_error(ErrorCode.BAD_MESSAGE, message)
            return
        await self.handle(message)

    async def handle(self, message: dict) -> None:
        """One client message (a dict with a string ``type``)."""
        if message["type"] == "ping":
            await self.send_event("pong", {})
        else:
            await self.send_error(ErrorCode.UNKNOWN_MESSAGE, "unknown message type")

    def snapshot_allowed(self) -> bool:
        return self.snapshots.take()

    async def send_event(self, event_type: str, data: dict, *, table: str | None = None) -> None:
        """A message of the socket's own, as ``kernel.live`` writes events (with the ``table`` a lobby needs)."""
        await self.send(text_data=json.dumps(event_envelope(event_type=event_type, data=data, table_code=table)))

    async def send_error(self, code: ErrorCode, message: str) -> None:
        await self.send_event("error", {"code": code, "message": message})

    async def dispatch(self, message: dict) -> None:
        """Every message skips the thread hop channels makes before each handler to close stale database
        connections: forwarding an event touches no database, and the handlers of ours (connect, receive,
        disconnect) reach it only through ``database_sync_to_async``, which closes them itself. At 1,000
        sockets a table those hops (all through one thread) made each event seconds late, took a sixth of a
        web process's CPU while bets came in, and a tenth of a reconnecting crowd's connects. A handler added
        here reaches the database through ``database_sync_to_async`` too, never ``sync_to_async``."""
        if message["type"] == "live.event":
            await self.live_event(message)
        elif message["type"] == "websocket.receive":
            await self.websocket_receive(message)
        else:
            handler = getattr(self, get_handler_name(message), None)
            if handler is None:
                raise ValueError(f"no handler for message type {message['type']}")
            await handler(message)

    async def live_event(self, message: dict) -> None:
        """Forward an event to this player as its sender serialised it (``kernel.live.live_message``)."""
        await self.send(text_data=message["text"])

    async def table_event(self, text: str) -> None:
        """Forward an event to the table (``kernel.table_broadcast``): held until the snapshot is sent."""
        if self.held_events is not None:
            self.held_events.append(text)
        else:
            await self.send(text_data=text)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number")


def _parsed(text_data: str | None, bytes_data: bytes | None) -> dict | str:
    """The message as a dict with a string ``type``, or the reason it is refused."""
    if text_data is None:
        return "send JSON text, not binary frames"
    if len(text_data.encode()) > MAX_MESSAGE_BYTES:
        return f"messages are limited to {MAX_MESSAGE_BYTES} bytes"
    try:
        message = json.loads(text_data, parse_float=Decimal, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # RecursionError: nested too deep
        return "messages must be JSON"
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return "messages must be JSON objects with a string 'type'"
    return message
