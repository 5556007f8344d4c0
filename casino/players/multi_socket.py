"""The multi-table socket (``/ws/multi/?tables=pb1,live3``): one signed-in player's socket for up to four tables,
each table's every event (as its table socket carries them, each naming its ``table``), the player's own events
(which name none) and their bet requests at any of them, each naming its ``table``, through the intake as the
table socket's (``casino.players.player_socket``).

A socket of its own rather than the lobby's: the lobby's is anyone's (anonymous viewers too), follows every table
and forwards a dozen public events of each; this one is a player's, follows the four tables chosen with all their
events, and takes bets. Both count once in the user's socket allowance.

On connect: an anonymous viewer, more than four tables, or one that is unknown or dealt on demand gets one ``error``
(``not_signed_in``, ``too_many_tables``, ``no_such_table``, ``dealt_on_demand``, with the table in ``details``) and
the socket is closed with 4403 (``live.js`` does not retry): the page asks only for those it shows, so the socket
sets none aside. A closed table is followed (its snapshot says so; ``table_opened`` when it reopens). Then a
``snapshot`` of each table (``{"type": "snapshot", "table": code, ...}``, the table socket's snapshot for this player).

Client messages: ``{"type": "snapshot", "table": code}`` (one a second past one per table at once), ``ping``, and
``bet``, ``undo``, ``remove``, ``rebet`` as on the table socket with a ``table``: answered ``bet_accepted`` or
``bet_rejected`` naming it (a table not followed: ``no_such_table``). A staff member may watch; their bets are
refused (``staff_account``). Bet requests share the socket's one allowance (20 at once, then 10 a second).
"""

from __future__ import annotations

import json

from channels.db import database_sync_to_async

from casino.players.bet_requests import KINDS
from casino.players.errors import NoSuchTable, NotSignedIn
from casino.players.multi import multi_choice, scope_tables_asked
from casino.players.player_socket import PlayerSocket
from kernel.errors import ErrorCode, PuntoError
from kernel.sockets import REFUSED, SNAPSHOTS_PER_SECOND, TokenBucket


class MultiTableConsumer(PlayerSocket):
    table_codes: list[str] = []

    async def connect(self) -> None:
        try:
            user = self.scope.get("user")
            if user is None or not user.is_authenticated:
                raise NotSignedIn("sign in to play several tables")
            choice = await database_sync_to_async(multi_choice)(codes=scope_tables_asked(self.scope))
            if choice.set_aside:
                raise choice.set_aside[0]
        except PuntoError as error:
            await self.accept()  # so that the browser hears why, and sees the close code
            await self.send_event("error", error.as_dict())
            await self.close(code=REFUSED)
            return
        if not await self.connection_slot_taken():
            return
        self.table_codes = [table.code for table in choice.tables]
        self.bet_requests_allow()
        self.snapshots = TokenBucket(burst=len(self.table_codes), per_second=SNAPSHOTS_PER_SECOND)
        await self.player_join()
        await self.follow(self.table_codes)
        await self.seamless_read()

    async def send_snapshot(self) -> None:
        for code, snapshot in (await self.player_snapshots(self.table_codes)).items():
            await self.send_event("snapshot", snapshot, table=code)

    async def handle(self, message: dict) -> None:
        code = message.get("table")
        if message["type"] in KINDS:
            if code in self.table_codes:
                answer = await self.bet_request(message, code)
            else:
                answer = _not_followed(message, code)
            await self.send(text_data=json.dumps({**answer, "table": code if isinstance(code, str) else None}))
        elif message["type"] == "snapshot":
            if code not in self.table_codes:
                await self.send_error(ErrorCode.NO_SUCH_TABLE, "not one of this socket's tables")
            elif not self.snapshot_allowed():
                error = {"code": ErrorCode.SNAPSHOT_TOO_FAST, "message": "one snapshot a second, please"}
                await self.send_event("error", error, table=code)
            else:
                snapshot = (await self.player_snapshots([code])).get(code)
                if snapshot is not None:
                    await self.send_event("snapshot", snapshot, table=code)
        else:
            await super().handle(message)


def _not_followed(message: dict, code: object) -> dict:
    request_id = message.get("request_id")
    error = NoSuchTable("name one of this socket's tables in the bet request's 'table'")
    return {
        "type": "bet_rejected",
        "request_id": request_id if isinstance(request_id, str) else None,
        "action": message["type"],
        "error": error.as_dict(),
    }
