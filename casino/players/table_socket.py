"""The table's WebSocket (``/ws/tables/<code>/``): a snapshot on connect, then live events; the messages are
documented in docs/live.md, the limits every socket of ours keeps in ``kernel.sockets``.

Client messages are JSON objects with a ``type``: ``ping`` (answered ``pong``), ``snapshot`` (the snapshot
again, e.g. after a reconnect; rate-limited per socket), ``chat`` (``text``: a signed-in player's message to
the table, ``casino.players.chat``) and the player's bet requests, through the bet intake
(``casino.players.intake``) as the table page's endpoints. Anything else, or a message refused, gets one
``error`` message and changes nothing.

``{"type": "bet", "request_id", "round_id", "bets": {"banker": "25.00"}}`` answers
``{"type": "bet_accepted", "request_id", "action", "round_id", "bets", "balance", "own_totals", "currency"}``
or ``{"type": "bet_rejected", "request_id", "action", "error": {"code", "message", "details"}}``; ``undo``,
``remove`` and ``rebet`` (with ``multiplier``) are answered the same way. The ``request_id`` is the
player's idempotency key: sent again (a reconnect), the first answer comes back and nothing moves twice.

A player's ``protection`` event (their time-out, self-exclusion or their operator's exclusion, on commit) makes
the socket read their protection again: from then on it refuses their new bets itself (``self_excluded``,
``timed_out``) without queueing them; the server refuses them anyway, and an undo or a remove stays open.
"""

from __future__ import annotations

import json

from channels.db import database_sync_to_async

from casino.players.bet_requests import KINDS
from casino.players.chat import chat_send
from casino.players.player_socket import PlayerSocket
from kernel.errors import ErrorCode
from kernel.sockets import NOT_FOUND, SNAPSHOT_BURST, SNAPSHOTS_PER_SECOND, TokenBucket
from kernel.ttl_cache import TtlCache
from tables.models import Table

# The tables a process has found by code, for ``TABLE_FOUND_SECONDS``: a crowd reconnecting to a table reads it
# once, not once a socket (a table is never deleted once it has dealt: its coups protect it).
_tables_found = TtlCache(size=10_000)
TABLE_FOUND_SECONDS = 60.0


async def _table_found(code: str) -> bool:
    if _tables_found.fresh(code) is not None:
        return True
    found = database_sync_to_async(_tables_found.get)
    return bool(await found(code, lambda: _table_exists(code), seconds=TABLE_FOUND_SECONDS))


def tables_found_forget() -> None:
    """Forget the tables this process found: a table removed is refused at once here (tests)."""
    _tables_found.clear()


def _table_exists(code: str) -> bool | None:
    return Table.objects.filter(code=code).exists() or None  # None: not kept (it may be made the next moment)


class PlayerTableConsumer(PlayerSocket):
    async def connect(self) -> None:
        self.bet_requests_allow()
        self.table_code = self.scope["url_route"]["kwargs"]["code"]
        if not await _table_found(self.table_code):
            await self.close(code=NOT_FOUND)
            return
        if not await self.connection_slot_taken():
            return
        self.snapshots = TokenBucket(burst=SNAPSHOT_BURST, per_second=SNAPSHOTS_PER_SECOND)
        await self.player_join()
        await self.follow([self.table_code])
        await self.seamless_read()

    async def send_snapshot(self) -> None:
        snapshots = await self.player_snapshots([self.table_code])
        if self.table_code in snapshots:  # else gone since the connect
            await self.send_event("snapshot", snapshots[self.table_code])

    async def handle(self, message: dict) -> None:
        if message["type"] in KINDS:
            await self.send(text_data=json.dumps(await self.bet_request(message, self.table_code)))
        elif message["type"] == "snapshot":
            if self.snapshot_allowed():
                await self.send_snapshot()
            else:
                await self.send_error(ErrorCode.SNAPSHOT_TOO_FAST, "one snapshot a second, please")
        elif message["type"] == "chat":
            refusal = await chat_send(
                layer=self.channel_layer,
                user=self.scope.get("user"),
                table_code=self.table_code,
                text=message.get("text"),
            )
            if refusal is not None:
                await self.send_error(*refusal)
        else:
            await super().handle(message)
