"""The table's WebSocket (``/ws/tables/<code>/``): a snapshot on connect, then live events.

Client messages are JSON objects with a ``type``: ``ping`` (answered ``pong``),
``snapshot`` (the snapshot again, e.g. after a reconnect) and ``chat`` (``text``: a signed-in
player's message to the table, sent to everyone there as a ``chat`` event with ``user`` (the
sender's display name, ``tables.players``: never a username) and ``text``). Anything else, or a
chat message refused, gets one ``error`` message and changes nothing.
"""

from __future__ import annotations

import json

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.core.cache import cache

from roadmaps.events import EVENT_VERSION, live_message, table_group, user_group
from roadmaps.selectors import table_snapshot
from tables.models import Table
from tables.selectors import player_display_name

MAX_MESSAGE_BYTES = 4096
NOT_FOUND = 4404
CHAT_MAX_LENGTH = 200
CHAT_INTERVAL_SECONDS = 1  # one message a second per player (across connections sharing the cache)


def _message(event_type: str, data: dict) -> str:
    return json.dumps({"type": event_type, "version": EVENT_VERSION, "data": data})


def _chat_line(text: object) -> str:
    """A chat message as one line: whitespace runs become one space, other unprintable characters go."""
    if not isinstance(text, str):
        return ""
    return "".join(char for char in " ".join(text.split()) if char.isprintable())


class TableConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.table_code = self.scope["url_route"]["kwargs"]["code"]
        table = await database_sync_to_async(Table.objects.filter(code=self.table_code).first)()
        if table is None:
            await self.close(code=NOT_FOUND)
            return
        self.groups_joined = [table_group(table.code)]
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.groups_joined.append(user_group(user.pk))
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        await self.send_snapshot()

    async def disconnect(self, code: int) -> None:
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def send_snapshot(self) -> None:
        table = await database_sync_to_async(Table.objects.get)(code=self.table_code)
        snapshot = await database_sync_to_async(table_snapshot)(table=table)
        await self.send(text_data=_message("snapshot", snapshot))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        message = self._parse(text_data, bytes_data)
        if isinstance(message, str):
            await self.send_error("bad_message", message)
            return
        if message["type"] == "ping":
            await self.send(text_data=_message("pong", {}))
        elif message["type"] == "snapshot":
            await self.send_snapshot()
        elif message["type"] == "chat":
            await self.chat(message.get("text"))
        else:
            await self.send_error("unknown_message", "unknown message type")

    async def send_error(self, code: str, message: str) -> None:
        await self.send(text_data=_message("error", {"code": code, "message": message}))

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
            message = json.loads(text_data)
        except (ValueError, RecursionError):  # RecursionError: nested too deep
            return "messages must be JSON"
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            return "messages must be JSON objects with a string 'type'"
        return message

    async def dispatch(self, message: dict) -> None:
        """Live events skip the thread hop channels makes before each handler to close stale
        database connections: forwarding one touches no database, and at 1,000 sockets a table
        those hops (all through one thread) made each event seconds late."""
        if message["type"] == "live.event":
            await self.live_event(message)
        else:
            await super().dispatch(message)

    async def live_event(self, message: dict) -> None:
        """Forward an event as its sender serialised it (``roadmaps.events.live_message``)."""
        await self.send(text_data=message["text"])
