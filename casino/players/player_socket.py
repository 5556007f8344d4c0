"""What a socket a player bets on shares, whatever tables it follows: the table socket (``/ws/tables/<code>/``) and
the multi-table socket (``/ws/multi/``). The player's own events, their protection, their snapshot of a table
(the table's stakes, the hands they show) and their bet requests, each for a named table, through the one intake
(``casino.players.intake``) as the table page's endpoints.

A bet request is ``{"type": "bet", "request_id", "round_id", "bets"}`` (and ``undo``, ``remove``, ``rebet``),
answered ``bet_accepted`` or ``bet_rejected`` with the request's ``request_id`` and ``action`` (docs/live.md).
"""

from __future__ import annotations

import copy
from dataclasses import replace

from channels.db import database_sync_to_async
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils import timezone

from casino.players.errors import NotSignedIn, StaffAccount, TooFast
from casino.players.intake import BET_REQUEST_BURST, BET_REQUESTS_PER_SECOND, IntakeRequest, bet_request_submit, queued
from casino.players.table_shared import TableShared, table_shared_read
from kernel.errors import ErrorCode, PuntoError
from kernel.live import event_type_read, user_group
from kernel.security import LAUNCH_SESSION_KEY
from kernel.sockets import LiveSocket, TokenBucket
from partners.models import PartnerPlayer
from partners.selectors.accounts import player_currency, seamless_player
from tables.models import Table
from tables.selectors import coup_hands_shown_by_players
from wagering.errors import BetRejected
from wagering.protection.checks import break_refusal
from wagering.protection.services import PROTECTION_EVENT, protection_public
from wagering.protection.standing import Protection, player_protection
from wagering.selectors import coup_totals_public

PLACING = ("bet", "rebet")  # the requests a break from play refuses


class PlayerSocket(LiveSocket):
    seamless: PartnerPlayer | None = None
    player: AbstractBaseUser | None = None  # signed in: the user itself, not the lazy proxy read ~40 times a bet
    protection: Protection | None = None  # read at the player's last ``protection`` event, if any
    tables: dict[str, Table]  # the tables followed, by code (read at connect: their live coups are read by them)

    def bet_requests_allow(self) -> None:
        self.bet_requests = TokenBucket(burst=BET_REQUEST_BURST, per_second=BET_REQUESTS_PER_SECOND)

    async def player_join(self) -> None:
        """A signed-in user's own events (wallet, settlement...) come to this socket too."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return
        self.player = copy.copy(user)  # a lazy object's copy is a copy of what it wraps
        self.groups_joined = [user_group(user.pk)]
        await self.channel_layer.group_add(self.groups_joined[0], self.channel_name)

    async def seamless_read(self) -> None:
        """A partner's player launched into a seamless-wallet session (read once: the session is the socket's).
        The session is read here, not in a thread, once channels' ``AuthMiddleware`` has loaded it to find the
        user (``accessed``): a player who was not launched costs no thread hop."""
        user = self.scope.get("user")
        session = self.scope.get("session")
        if user is None or not user.is_authenticated or user.is_staff or session is None:
            return
        if session.accessed:
            launched = session.get(LAUNCH_SESSION_KEY)
        else:  # not loaded yet: loading reads the cache or the database, in a thread
            launched = await database_sync_to_async(session.get)(LAUNCH_SESSION_KEY)
        if launched:
            self.seamless = await database_sync_to_async(seamless_player)(user=user)

    async def player_snapshots(self, codes: list[str]) -> dict[str, dict]:
        """The snapshots of followed tables (``codes``) for this viewer by code: each table's, shared with the
        process's other sockets (``tables_shared``), and the viewer's own part read in one thread hop."""
        shared = await self.tables_shared(codes, lambda code: table_shared_read(code=code))
        return await database_sync_to_async(self._viewer_snapshots)(shared)

    def _viewer_snapshots(self, shared: dict[str, TableShared]) -> dict[str, dict]:
        """Each table's snapshot with the table's stakes on the live coup in the viewer's currency as of the
        shared read (``bet_totals``, as its event would carry them: a bet since sends the event itself), the
        hands the viewer shows (``you_show``, as their private event says), a player's protection
        (``protection``, as their ``protection`` event says; null for a player who never set any) and the server's
        time as it is sent (``server_now``: the page's betting timer sets its clock by it, countdown.js)."""
        user = self.scope.get("user") or AnonymousUser()
        mine: dict = {}
        if user.is_authenticated and not user.is_staff:
            protection = player_protection(user_id=user.pk, at=timezone.now())
            mine["protection"] = protection_public(protection) if protection is not None else None
        currency = player_currency(user=user)
        snapshots = {}
        mine["server_now"] = timezone.now().isoformat(timespec="milliseconds")
        for code, table in shared.items():
            snapshots[code] = {**table.snapshot, **mine}
            coup = table.live_coup  # as the shared snapshot shows it: read once for all the process's sockets
            if coup is not None:
                snapshots[code]["bet_totals"] = coup_totals_public(
                    coup=coup,
                    currency=currency,
                    table_totals=table.stake_totals.get(currency, {}),
                    bettors=table.bettors.get(currency, {}),
                )
                snapshots[code]["you_show"] = coup_hands_shown_by_players(coup=coup).get(user.pk, [])
        return snapshots

    async def live_event(self, message: dict) -> None:
        """The player's own events; a ``protection`` one first updates what this socket refuses."""
        if self.player is not None and event_type_read(message["text"]) == PROTECTION_EVENT:
            self.protection = await database_sync_to_async(player_protection)(user_id=self.player.pk, at=timezone.now())
        await super().live_event(message)

    async def bet_request(self, message: dict, table_code: str) -> dict:
        """The answer to a bet request at ``table_code`` (``bet_accepted`` or ``bet_rejected``), as sent."""
        kind, request_id = message["type"], message.get("request_id")
        echo = {"request_id": request_id if isinstance(request_id, str) else None, "action": kind}
        try:
            answer = await self._answer(message, kind, request_id, table_code)
        except PuntoError as error:
            return {"type": "bet_rejected", **echo, "error": error.as_dict()}
        return {"type": "bet_accepted", **echo, **answer.as_data()}

    async def _answer(self, message: dict, kind: str, request_id: object, table_code: str):
        if not self.bet_requests.take():
            raise TooFast(f"at most {BET_REQUESTS_PER_SECOND} bet requests a second: send them again in a moment")
        user = self.player
        if user is None:
            raise NotSignedIn("sign in to play")
        if user.is_staff:
            raise StaffAccount("staff accounts do not play: sign in as a player")
        if kind in PLACING and self.protection is not None:
            refusal = break_refusal(replace(self.protection, at=timezone.now()))
            if refusal is not None:
                raise refusal
        if request_id is None:
            raise BetRejected(
                "a bet request over the socket carries its request_id (a UUID)", code=ErrorCode.INVALID_REQUEST_ID
            )
        request = IntakeRequest(
            user=user,
            table_code=table_code,
            kind=kind,
            round_id=message.get("round_id"),
            bets=message.get("bets"),
            multiplier=message.get("multiplier", 1),
            request_id=request_id,
            answered_on=self.channel_name,
        )
        if self.seamless is None and queued():  # the table's thread does the work: its answer comes to this loop
            return await bet_request_submit(request)
        answered = await database_sync_to_async(bet_request_submit)(request, seamless=self.seamless)
        return answered.result()  # carried out in that thread: answered already
