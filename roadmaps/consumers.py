"""The table's WebSocket (``/ws/tables/<code>/``): a snapshot on connect, then live events.

Client messages are JSON objects with a ``type``: ``ping`` (answered ``pong``),
``snapshot`` (the snapshot again, e.g. after a reconnect) and ``chat`` (``text``: a signed-in
player's message to the table, sent to everyone there as a ``chat`` event with ``user`` (the
sender's display name, ``tables.players``: never a username) and ``text``). Anything else, or a
chat message refused, gets one ``error`` message and changes nothing.

Abuse limits: a frame over ``WS_MAX_FRAME_BYTES`` closes the socket with 1009 (the servers refuse it
first: ``--ws-max-size``); snapshot requests are rate-limited per socket; a user (or an anonymous
address) holds at most ``WS_MAX_CONNECTIONS_PER_USER`` (``..._PER_ADDRESS``) sockets, the next one
being closed with 4429.
"""

from __future__ import annotations

import asyncio
import json
import time
from decimal import Decimal

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.core.cache import cache

from kernel.live import EVENT_VERSION, live_message, table_group, user_group
from kernel.metrics import open_sockets_change
from kernel.table_broadcast import table_join, table_leave
from roadmaps.connections import connection_owner, connection_slot_keep, connection_slot_release, connection_slot_take
from roadmaps.selectors import table_snapshot
from tables.models import Table
from tables.selectors import player_display_name

MAX_MESSAGE_BYTES = 4096
WS_MAX_FRAME_BYTES = 64 * 1024  # the web servers' --ws-max-size (Procfile, manage.py serve)
MESSAGE_TOO_BIG = 1009
NOT_FOUND = 4404
TOO_MANY_CONNECTIONS = 4429
SERVER_ERROR = 1011
SNAPSHOT_BURST = 3  # snapshot requests a socket may make at once, then one a second
SNAPSHOTS_PER_SECOND = 1
CHAT_MAX_LENGTH = 200
CHAT_INTERVAL_SECONDS = 1  # one message a second per player (across connections sharing the cache)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number")


def socket_message(event_type: str, data: dict, *, table: str | None = None) -> str:
    """A message of the socket's own, as ``kernel.live`` writes events (with the ``table`` a lobby needs)."""
    message = {"type": event_type, "version": EVENT_VERSION, "data": data}
    if table is not None:
        message["table"] = table
    return json.dumps(message)


def _chat_line(text: object) -> str:
    """A chat message as one line: whitespace runs become one space, other unprintable characters go."""
    if not isinstance(text, str):
        return ""
    return "".join(char for char in " ".join(text.split()) if char.isprintable())


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


class TableConsumer(AsyncWebsocketConsumer):
    connection_slot: str | None = None
    slot_keeper: asyncio.Task | None = None
    counted = False  # in the open sockets' gauge
    groups_joined: tuple[str, ...] | list[str] = ()  # the user's own events

    async def connect(self) -> None:
        self.table_code = self.scope["url_route"]["kwargs"]["code"]
        table = await database_sync_to_async(Table.objects.filter(code=self.table_code).first)()
        if table is None:
            await self.close(code=NOT_FOUND)
            return
        if not await self.connection_slot_taken():
            return
        self.snapshots = TokenBucket(burst=SNAPSHOT_BURST, per_second=SNAPSHOTS_PER_SECOND)
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.groups_joined = [user_group(user.pk)]
            await self.channel_layer.group_add(self.groups_joined[0], self.channel_name)
        await self.follow([table.code])

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

    async def follow(self, codes: list[str]) -> None:
        """Join the tables' events, accept, send the snapshot, then the events made meanwhile, in their order."""
        self.held_events: list[str] | None = []  # the tables', until the snapshot is sent (then None)
        self.tables_joined = [table_group(code) for code in codes]
        for group in self.tables_joined:
            await table_join(layer=self.channel_layer, group=group, listener=self)
        await self.accept()
        open_sockets_change(1)
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
        if self.counted:
            open_sockets_change(-1)
            self.counted = False
        for group in getattr(self, "tables_joined", []):
            await table_leave(layer=self.channel_layer, group=group, listener=self)
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        if self.slot_keeper is not None:
            self.slot_keeper.cancel()
        if self.connection_slot is not None:
            await connection_slot_release(key=self.connection_slot, channel_name=self.channel_name)

    async def send_snapshot(self) -> None:
        snapshot = await database_sync_to_async(lambda: self.snapshot(Table.objects.get(code=self.table_code)))()
        await self.send(text_data=socket_message("snapshot", snapshot))

    def snapshot(self, table: Table) -> dict:
        return table_snapshot(table=table)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if len(text_data.encode() if text_data is not None else bytes_data or b"") > WS_MAX_FRAME_BYTES:
            await self.close(code=MESSAGE_TOO_BIG)
            return
        message = self._parse(text_data, bytes_data)
        if isinstance(message, str):
            await self.send_error("bad_message", message)
            return
        await self.handle(message)

    async def handle(self, message: dict) -> None:
        """One client message (a dict with a string ``type``): the viewer's messages here; the player's
        bets are added by ``casino.players.table_socket``."""
        if message["type"] == "ping":
            await self.send(text_data=socket_message("pong", {}))
        elif message["type"] == "snapshot":
            if self.snapshot_allowed():
                await self.send_snapshot()
            else:
                await self.send_error("snapshot_too_fast", "one snapshot a second, please")
        elif message["type"] == "chat":
            await self.chat(message.get("text"))
        else:
            await self.send_error("unknown_message", "unknown message type")

    def snapshot_allowed(self) -> bool:
        return self.snapshots.take()

    async def send_error(self, code: str, message: str) -> None:
        await self.send(text_data=socket_message("error", {"code": code, "message": message}))

    async def chat(self, text: object) -> None:
        """Pass a signed-in player's message on to the table: one line of printable text, length- and rate-limited."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.send_error("chat_sign_in", "sign in to chat")
            return
        line = _chat_line(text)
        if not line or len(line) > CHAT_MAX_LENGTH:
            await self.send_error("chat_invalid", f"a chat message is text of 1 to {CHAT_MAX_LENGTH} characters")
            return
        if not await cache.aadd(f"chat:{user.pk}", True, timeout=CHAT_INTERVAL_SECONDS):
            await self.send_error("chat_too_fast", "one chat message a second, please")
            return
        name = await database_sync_to_async(player_display_name)(user=user)
        event = {
            "type": "chat",
            "version": EVENT_VERSION,
            "table": self.table_code,
            "data": {"user": name, "text": line},
        }
        await self.channel_layer.group_send(table_group(self.table_code), live_message(event))

    @staticmethod
    def _parse(text_data: str | None, bytes_data: bytes | None) -> dict | str:
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

    async def dispatch(self, message: dict) -> None:
        """Live events and the socket's messages skip the thread hop channels makes before each handler
        to close stale database connections: forwarding an event touches no database, and a message's
        handlers reach it only through ``database_sync_to_async``, which closes them itself. At 1,000
        sockets a table those hops (all through one thread) made each event seconds late, and took a
        sixth of a web process's CPU while bets came in."""
        if message["type"] == "live.event":
            await self.live_event(message)
        elif message["type"] == "websocket.receive":
            await self.websocket_receive(message)
        else:
            await super().dispatch(message)

    async def live_event(self, message: dict) -> None:
        """Forward an event to this player as its sender serialised it (``kernel.live.live_message``)."""
        await self.send(text_data=message["text"])

    async def table_event(self, text: str) -> None:
        """Forward an event to the table (``kernel.table_broadcast``): held until the snapshot is sent."""
        if self.held_events is not None:
            self.held_events.append(text)
        else:
            await self.send(text_data=text)
