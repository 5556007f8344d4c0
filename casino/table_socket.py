"""The table's socket for players: the viewer's socket (``roadmaps.consumers``) and the player's bet
requests over it (``casino.bet_requests``, as the table page's endpoints), documented in docs/live.md.

``{"type": "bet", "request_id", "round_id", "bets": {"banker": "25.00"}}`` answers
``{"type": "bet_accepted", "request_id", "action", "round_id", "bets", "balance", "own_totals", "currency"}``
or ``{"type": "bet_rejected", "request_id", "action", "error": {"code", "message", "details"}}``; ``undo``,
``remove`` and ``rebet`` (with ``multiplier``) are answered the same way. The ``request_id`` is the
player's idempotency key: sent again (a reconnect), the first answer comes back and nothing moves twice.
"""

from __future__ import annotations

import json
import logging

from channels.db import database_sync_to_async
from django.db import DatabaseError

from casino.bet_requests import KINDS, PlayerBetRequest, bet_request_answer, request_coup
from casino.security import LAUNCH_SESSION_KEY
from partners.selectors import seamless_player
from roadmaps.consumers import TableConsumer
from tables.selectors import table_with_live_coup
from wagering.errors import DATABASE_UNAVAILABLE_CODE, DATABASE_UNAVAILABLE_MESSAGE, BetRejected, WageringError

logger = logging.getLogger(__name__)


class PlayerTableConsumer(TableConsumer):
    async def handle(self, message: dict) -> None:
        if message["type"] in KINDS:
            answer = await database_sync_to_async(self.bet_request)(message)
            await self.send(text_data=json.dumps(answer))
        else:
            await super().handle(message)

    def bet_request(self, message: dict) -> dict:
        """The answer to a bet request (in a worker thread: it reads and writes the database)."""
        kind, request_id = message["type"], message.get("request_id")
        echo = {"request_id": request_id if isinstance(request_id, str) else None, "action": kind}
        try:
            return {"type": "bet_accepted", **echo, **self._answer(message, kind, request_id)}
        except WageringError as error:
            return {"type": "bet_rejected", **echo, "error": error.as_dict()}
        except DatabaseError:  # its transaction is rolled back: nothing changed
            logger.exception("bet request on %s: database error", self.table_code)
            error = {"code": DATABASE_UNAVAILABLE_CODE, "message": DATABASE_UNAVAILABLE_MESSAGE, "details": {}}
            return {"type": "bet_rejected", **echo, "error": error}

    def _answer(self, message: dict, kind: str, request_id: object) -> dict:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            raise BetRejected("not_signed_in", "sign in to play")
        if user.is_staff:
            raise BetRejected("staff_account", "staff accounts do not play: sign in as a player")
        if request_id is None:
            raise BetRejected("invalid_request_id", "a bet request over the socket carries its request_id (a UUID)")
        table, live = table_with_live_coup(code=self.table_code)
        coup = request_coup(table=table, live=live, round_id=message.get("round_id"))
        session = self.scope.get("session")
        launched = session is not None and session.get(LAUNCH_SESSION_KEY)
        answer = bet_request_answer(
            PlayerBetRequest(
                user=user,
                seamless=seamless_player(user=user) if launched else None,
                coup=coup,
                kind=kind,
                bets=message.get("bets"),
                multiplier=message.get("multiplier", 1),
                request_id=request_id,
            )
        )
        return answer.as_data()
