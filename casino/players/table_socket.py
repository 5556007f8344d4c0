"""The table's socket for players: the viewer's socket (``roadmaps.consumers``) and the player's bet
requests over it, through the bet intake (``casino.players.intake``) as the table page's endpoints; the
messages are documented in docs/live.md.

``{"type": "bet", "request_id", "round_id", "bets": {"banker": "25.00"}}`` answers
``{"type": "bet_accepted", "request_id", "action", "round_id", "bets", "balance", "own_totals", "currency"}``
or ``{"type": "bet_rejected", "request_id", "action", "error": {"code", "message", "details"}}``; ``undo``,
``remove`` and ``rebet`` (with ``multiplier``) are answered the same way. The ``request_id`` is the
player's idempotency key: sent again (a reconnect), the first answer comes back and nothing moves twice.
"""

from __future__ import annotations

import asyncio
import json

from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser

from casino.players.bet_requests import KINDS
from casino.players.errors import NotSignedIn, StaffAccount, TooFast
from casino.players.intake import BET_REQUEST_BURST, BET_REQUESTS_PER_SECOND, IntakeRequest, bet_request_submit, queued
from kernel.errors import ErrorCode, PuntoError
from kernel.security import LAUNCH_SESSION_KEY
from partners.models import PartnerPlayer
from partners.selectors import player_currency, seamless_player
from roadmaps.consumers import TableConsumer, TokenBucket
from tables.models import Table
from tables.selectors import coup_hands_shown_by_players, table_live_coup
from wagering.errors import BetRejected
from wagering.selectors import coup_totals_public


class PlayerTableConsumer(TableConsumer):
    seamless: PartnerPlayer | None = None

    async def connect(self) -> None:
        self.bet_requests = TokenBucket(burst=BET_REQUEST_BURST, per_second=BET_REQUESTS_PER_SECOND)
        await super().connect()
        user = self.scope.get("user")
        if user is not None and user.is_authenticated and not user.is_staff:
            self.seamless = await database_sync_to_async(self._seamless_player)(user)

    def snapshot(self, table: Table) -> dict:
        """The viewer's snapshot, with the table's stakes on the live coup in the viewer's currency as they stand
        (``bet_totals``, as its event would carry them: the event itself comes only with the next bet) and the
        hands the viewer shows (``you_show``, as their private event says)."""
        snapshot = super().snapshot(table)
        coup = table_live_coup(table=table)
        if coup is not None:
            user = self.scope.get("user") or AnonymousUser()
            snapshot["bet_totals"] = coup_totals_public(coup=coup, currency=player_currency(user=user))
            snapshot["you_show"] = coup_hands_shown_by_players(coup=coup).get(user.pk, [])
        return snapshot

    def _seamless_player(self, user) -> PartnerPlayer | None:
        """A partner's player launched into a seamless-wallet session (read once: the session is the socket's)."""
        session = self.scope.get("session")
        return seamless_player(user=user) if session is not None and session.get(LAUNCH_SESSION_KEY) else None

    async def handle(self, message: dict) -> None:
        if message["type"] in KINDS:
            await self.send(text_data=json.dumps(await self.bet_request(message)))
        else:
            await super().handle(message)

    async def bet_request(self, message: dict) -> dict:
        kind, request_id = message["type"], message.get("request_id")
        echo = {"request_id": request_id if isinstance(request_id, str) else None, "action": kind}
        try:
            answer = await self._answer(message, kind, request_id)
        except PuntoError as error:
            return {"type": "bet_rejected", **echo, "error": error.as_dict()}
        return {"type": "bet_accepted", **echo, **answer.as_data()}

    async def _answer(self, message: dict, kind: str, request_id: object):
        if not self.bet_requests.take():
            raise TooFast(f"at most {BET_REQUESTS_PER_SECOND} bet requests a second: send them again in a moment")
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            raise NotSignedIn("sign in to play")
        if user.is_staff:
            raise StaffAccount("staff accounts do not play: sign in as a player")
        if request_id is None:
            raise BetRejected(
                "a bet request over the socket carries its request_id (a UUID)", code=ErrorCode.INVALID_REQUEST_ID
            )
        request = IntakeRequest(
            user=user,
            table_code=self.table_code,
            kind=kind,
            round_id=message.get("round_id"),
            bets=message.get("bets"),
            multiplier=message.get("multiplier", 1),
            request_id=request_id,
        )
        if self.seamless is None and queued():  # the table's thread does the work: nothing to wait for here
            future = bet_request_submit(request)
        else:
            future = await database_sync_to_async(bet_request_submit)(request, seamless=self.seamless)
        return await asyncio.wrap_future(future)
