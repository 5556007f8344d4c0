"""A table dealt on demand (seed 004): the player's page and its Deal endpoint (session auth + CSRF).

POST ``{"bets": {type: amount}, "commitment", "request_id"}`` (Deal) or ``{"rebet": true, "commitment",
"request_id"}`` (Rebet and deal): one private coup placed, dealt and settled (``casino.lifecycle.rng``), answered
with its cards, result, returns and the balance after, and the roads of the shoe it was dealt from (the player's
own, ``roads``); a refusal as the other endpoints answer it (``casino.players.api``), nothing changed. A player
whose money a partner's seamless wallet holds (a launched session) deals too: one debit and one credit per round,
their balance the partner's (``casino.lifecycle.rng``).
"""

from __future__ import annotations

import re

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_POST

from casino.lifecycle.rng import RngDealAsked, rng_coup_deal, rng_shoe_public, rng_shoe_ready
from casino.players.api import bet_request_allowed, player_endpoint
from casino.players.bet_requests import request_id_checked
from casino.players.errors import RequestRefused, TooFast
from casino.players.intake import BET_REQUEST_BURST
from casino.players.launch import launched_seamless_player
from kernel.errors import ErrorCode
from partners.seamless import seamless_balance
from roadmaps.selectors import private_round_roadmap, private_shoe_roadmap
from tables.models import Coup, Table
from tables.selectors import table_chips, table_coup_rules
from wagering.selectors import player_personal_limits, player_round_history, wallet_balance


def _board(table: Table) -> dict:
    """The betting areas the table offers and what each pays, as the board draws them (static/js/board.js)."""
    rules = table_coup_rules(table=table)
    return {
        "side_bets": list(rules.table.side_bets),
        "payouts": {bet: paytable.odds_label() for bet, paytable in rules.table.paytables().items()},
    }


COMMITMENT = re.compile(r"[0-9a-f]{64}")
RECENT_ROUNDS = 12


@require_POST
@player_endpoint
def rng_deal(request: HttpRequest, table: Table, live: Coup | None, body: dict) -> JsonResponse:
    """Deal: the bets asked (or the last ones again) on a new private coup, dealt and settled at once."""
    if not bet_request_allowed(user_id=request.user.pk):
        raise TooFast(f"at most {BET_REQUEST_BURST} bet requests a second: send them again in a moment")
    rebet, bets = body.get("rebet", False), body.get("bets")
    if rebet is not True and rebet is not False:
        raise RequestRefused('"rebet" is true or false', code=ErrorCode.BAD_JSON)
    if rebet == (bets is not None) or (bets is not None and not isinstance(bets, dict)):
        raise RequestRefused(
            'send the bets as {"bets": {"player": "10.00", ...}}, or {"rebet": true} to repeat your last ones',
            code=ErrorCode.BAD_JSON,
        )
    commitment = body.get("commitment")
    if not isinstance(commitment, str) or not COMMITMENT.fullmatch(commitment):
        raise RequestRefused("send the commitment of the shoe your page shows", code=ErrorCode.BAD_JSON)
    asked = RngDealAsked(
        user=request.user,
        table=table,
        bets=None if rebet else bets,
        commitment=commitment,
        request_id=request_id_checked(body.get("request_id")),
        seamless=launched_seamless_player(request),
    )
    answer = rng_coup_deal(asked=asked)
    roads = private_round_roadmap(round_id=answer["round_id"], player_id=request.user.pk)
    return JsonResponse({"ok": True, **answer, "roads": roads})


def rng_table_page(request: HttpRequest, table: Table, currency: str) -> HttpResponse:
    """The page of a table dealt on demand: the player's shoe (made and committed now if they have none, so
    its commitment is shown before its first deal) and its roads, chips, board, Deal, and their latest rounds here."""
    seamless = launched_seamless_player(request)
    plays = table.is_open and not request.user.is_staff
    shoe = rng_shoe_ready(table=table, player=request.user) if plays else None
    context = {
        "table": table,
        "chips": table_chips(table=table, currency=currency),
        # A partner's wallet's balance as it answers (None: not in time; shown blank until the first deal).
        "balance": wallet_balance(user=request.user) if seamless is None else seamless_balance(player=seamless),
        "currency": currency,
        "personal_limits": player_personal_limits(
            table_id=table.pk, user=request.user, currency=currency, at=timezone.now()
        ),
        "shoe": rng_shoe_public(shoe=shoe),
        "seamless": seamless is not None,
        "rounds": player_round_history(user=request.user, table=table, limit=RECENT_ROUNDS),
        "board": _board(table),
        "roads": private_shoe_roadmap(shoe=shoe),
        "squeeze_turn_ms": round(settings.SQUEEZE_TURN_SECONDS * 1000),
    }
    return render(request, "rng_table.html", context)
