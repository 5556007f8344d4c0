"""The lobby's socket (``/ws/lobby/``): every table's public events on one socket, each event naming its
``table`` as it always has, and each table's snapshot likewise (``{"type": "snapshot", "table": code, ...}``,
the table socket's public snapshot). Before, the lobby opened a socket per table: a floor of more open tables
than a player's socket allowance left some of its cards "Reconnecting…".

The client asks again for one table's snapshot with ``{"type": "snapshot", "table": code}`` (after a shoe
change, say); ``ping`` is answered ``pong``; anything else gets one ``error`` (a refused snapshot request's
names its table). The socket counts once in the user's (or address's) allowance, follows the tables there are
when it opens, and carries only the events a lobby card shows: no player's own (wallet, bets), no table's
stakes, chat or seats. A connect reads a snapshot of every table, so an owner opens at most
``LOBBY_CONNECTS_PER_SECOND`` lobby sockets a second (the next is closed with 4429; ``live.js`` retries).
"""

from __future__ import annotations

import time

from channels.db import database_sync_to_async
from django.core.cache import cache

from casino.players.table_shared import table_shared_read
from kernel.errors import ErrorCode
from kernel.live import event_type_read
from kernel.sockets import SNAPSHOTS_PER_SECOND, TOO_MANY_CONNECTIONS, LiveSocket, TokenBucket, connection_owner
from tables.models import Table

LOBBY_CONNECTS_PER_SECOND = 3
# The table events a lobby card shows (static/js/lobby.js); the others (stakes, chat, seats...) are not sent.
LOBBY_EVENTS = frozenset(
    {
        "betting_open",
        "no_more_bets",
        "card",
        "result",
        "roads",
        "coup_held",
        "coup_resumed",
        "cut_card_out",
        "dealer_changed",
        "shoe_change",
        "table_opened",
        "table_closed",
    }
)


class LobbyConsumer(LiveSocket):
    table_codes: list[str] = []

    async def connect(self) -> None:
        if not await _connect_allowed(self.scope):
            await self.accept()  # so that the browser sees the close code
            await self.close(code=TOO_MANY_CONNECTIONS)
            return
        if not await self.connection_slot_taken():
            return
        self.table_codes = await database_sync_to_async(_table_codes)()
        # A snapshot for each table at once (they may all change shoes together), then one a second.
        self.snapshots = TokenBucket(burst=max(3, len(self.table_codes)), per_second=SNAPSHOTS_PER_SECOND)
        await self.follow(self.table_codes)

    async def send_snapshot(self) -> None:
        for code, snapshot in (await self._snapshots(self.table_codes)).items():
            await self.send_event("snapshot", snapshot, table=code)

    async def handle(self, message: dict) -> None:
        if message["type"] == "snapshot":
            code = message.get("table")
            if code not in self.table_codes:
                await self.send_error(ErrorCode.UNKNOWN_TABLE, "no such table in the lobby")
            elif not self.snapshot_allowed():
                error = {"code": ErrorCode.SNAPSHOT_TOO_FAST, "message": "one snapshot a second, please"}
                await self.send_event("error", error, table=code)
            else:
                snapshot = (await self._snapshots([code])).get(code)
                if snapshot is not None:
                    await self.send_event("snapshot", snapshot, table=code)
        else:
            await super().handle(message)

    async def _snapshots(self, codes: list[str]) -> dict[str, dict]:
        shared = await self.tables_shared(codes, lambda code: table_shared_read(code=code))
        return {code: table.snapshot for code, table in shared.items()}

    async def table_event(self, text: str) -> None:
        if event_type_read(text) in LOBBY_EVENTS:
            await super().table_event(text)


async def _connect_allowed(scope: dict) -> bool:
    owner, _ = connection_owner(scope)
    key = f"lobby-connects:{owner}:{int(time.time())}"
    await cache.aadd(key, 0, timeout=2)
    try:
        return await cache.aincr(key) <= LOBBY_CONNECTS_PER_SECOND
    except ValueError:  # expired between the two: a new second
        return True


def _table_codes() -> list[str]:
    return list(Table.objects.order_by("code").values_list("code", flat=True))
