"""The table's WebSocket (``/ws/tables/<code>/``): a snapshot on connect, then live events.

Client messages are JSON objects with a ``type``: ``ping`` (answered ``pong``) and
``snapshot`` (the snapshot again, e.g. after a reconnect). Anything else gets one
``error`` message and changes nothing.
"""

from __future__ import annotations

import json

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from roadmaps.events import EVENT_VERSION, table_group, user_group
from roadmaps.selectors import table_snapshot
from tables.models import Table

MAX_MESSAGE_BYTES = 4096
NOT_FOUND = 4404


def _message(event_type: str, data: dict) -> str:
    return json.dumps({"type": event_type, "version": EVENT_VERSION, "data": data})


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
            await self.send(text_data=_message("error", {"code": "bad_message", "message": message}))
            return
        if message["type"] == "ping":
            await self.send(text_data=_message("pong", {}))
        elif message["type"] == "snapshot":
            await self.send_snapshot()
        else:
            await self.send(text_data=_message("error", {"code": "unknown_message", "message": "unknown message type"}))

    @staticmethod
    def _parse(text_data: str | None, bytes_data: bytes | None) -> dict | str:
        """The message as a dict with a string ``type``, or the reason it is refused."""
        if text_data is None:
            return "send JSON text, not binary frames"
        if len(text_data.encode()) > MAX_MESSAGE_BYTES:
            return f"messages are limited to {MAX_MESSAGE_BYTES} bytes"
        try:
            message = json.loads(text_data)
        except ValueError:
            return "messages must be JSON"
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            return "messages must be JSON objects with a string 'type'"
        return message

    async def live_event(self, message: dict) -> None:
        await self.send(text_data=json.dumps(message["event"]))
