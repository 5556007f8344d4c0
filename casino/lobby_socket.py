"""The lobby's socket (``/ws/lobby/``): every table's public events on one socket, each event naming its
``table`` as it always has, and each table's snapshot likewise (``{"type": "snapshot", "table": code, ...}``,
the table socket's public snapshot). Before, the lobby opened a socket per table: a floor of more open tables
than a player's socket allowance left some of its cards "Reconnecting…".

The client asks again for one table's snapshot with ``{"type": "snapshot", "table": code}`` (after a shoe
change, say); ``ping`` is answered ``pong``; anything else gets one ``error``. The socket counts once in the
user's (or address's) allowance, follows the tables there are when it opens, and carries no player's own
events (wallet, bets): the lobby shows none.
"""

from __future__ import annotations

from channels.db import database_sync_to_async

from roadmaps.consumers import SNAPSHOTS_PER_SECOND, TableConsumer, TokenBucket, socket_message
from roadmaps.selectors import table_snapshot
from tables.models import Table


class LobbyConsumer(TableConsumer):
    table_codes: list[str] = []

    async def connect(self) -> None:
        if not await self.connection_slot_taken():
            return
        self.table_codes = await database_sync_to_async(_table_codes)()
        # A snapshot for each table at once (they may all change shoes together), then one a second.
        self.snapshots = TokenBucket(burst=max(3, len(self.table_codes)), per_second=SNAPSHOTS_PER_SECOND)
        await self.follow(self.table_codes)

    async def send_snapshot(self) -> None:
        for code in self.table_codes:
            await self.send_table_snapshot(code)

    async def send_table_snapshot(self, code: str) -> None:
        snapshot = await database_sync_to_async(lambda: table_snapshot(table=Table.objects.get(code=code)))()
        await self.send(text_data=socket_message("snapshot", snapshot, table=code))

    async def handle(self, message: dict) -> None:
        if message["type"] == "snapshot":
            code = message.get("table")
            if code not in self.table_codes:
                await self.send_error("unknown_table", "no such table in the lobby")
            elif not self.snapshot_allowed():
                await self.send_error("snapshot_too_fast", "one snapshot a second, please")
            else:
                await self.send_table_snapshot(code)
        elif message["type"] == "ping":
            await super().handle(message)
        else:
            await self.send_error("unknown_message", "unknown message type")


def _table_codes() -> list[str]:
    return list(Table.objects.order_by("code").values_list("code", flat=True))
