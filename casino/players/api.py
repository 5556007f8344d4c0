"""The table page's JSON endpoints: a signed-in player's bets on a table's live coup (session auth + CSRF).

Each endpoint finds the table's live coup and calls one service: wagering's for a player whose money
is in our wallet, the partner's seamless wallet (``partners.seamless``) for a player launched by a
partner in that mode (the answer's balance is the partner's; null if its wallet did not say). The answer is
``{"ok": true, "round_id", "balance", "bets": {bet_type: amount}}`` (the player's stakes on
the coup), or ``{"error": {"code", "message", "details"}}`` with 400 (the request or the bets
are refused), 409 (the coup is not taking bets, or there is nothing to undo), 401, 403 (a staff account), 404,
429 (``too_fast``: more than a socket's burst of bet requests in one second); 503 when the database failed
mid-request (nothing was changed). Amounts are strings; nothing changes
when a request is refused.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from decimal import Decimal
from functools import wraps

from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from casino.players.errors import NoSuchTable, NotSignedIn, RequestRefused, StaffAccount, TooFast
from casino.players.intake import BET_REQUEST_BURST, IntakeRequest, bet_request_submit
from casino.players.launch import launched_seamless_player
from kernel.errors import DatabaseUnavailable, ErrorCode, PuntoError
from kernel.rate_counts import window_count
from partners.seamless import seamless_balance
from tables.models import Coup, Table
from tables.selectors import coup_public, table_with_live_coup
from wagering.selectors import coup_bet_totals, player_round_history, wallet_balance

MAX_BODY_BYTES = 4096
HISTORY_ROUNDS = 20
logger = logging.getLogger(__name__)


def _refusal(error: PuntoError) -> JsonResponse:
    return JsonResponse({"error": error.as_dict()}, status=error.http_status)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number")


def _raw_body(request: HttpRequest) -> bytes:
    """The body, up to MAX_BODY_BYTES (past DATA_UPLOAD_MAX_MEMORY_SIZE, Django will not even read it)."""
    try:
        raw = request.body
    except RequestDataTooBig:
        raw = None
    if raw is None or len(raw) > MAX_BODY_BYTES:
        raise RequestRefused(f"the request body is limited to {MAX_BODY_BYTES} bytes", code=ErrorCode.BAD_REQUEST)
    return raw


def json_body(request: HttpRequest) -> dict:
    """The request's JSON object (empty when there is no body); numbers are read as exact decimals."""
    raw = _raw_body(request)
    if not raw:
        return {}
    try:
        body = json.loads(raw, parse_float=Decimal, parse_constant=_reject_constant)
    except (ValueError, RecursionError):  # not UTF-8, not JSON, NaN/Infinity, a number too long, nested too deep
        raise RequestRefused("the request body must be a JSON object", code=ErrorCode.BAD_JSON) from None
    if not isinstance(body, dict):
        raise RequestRefused("the request body must be a JSON object", code=ErrorCode.BAD_JSON)
    return body


def _player_bets(request: HttpRequest, *, coup: Coup | None, balance_asked: bool = True) -> JsonResponse:
    """The player's stakes on the coup and balance: a seamless wallet's is asked of it (if ``balance_asked``)."""
    user = request.user
    bets = coup_bet_totals(coup=coup, user=user) if coup is not None else {}
    player = launched_seamless_player(request)
    if player is None:
        balance = wallet_balance(user=user)
    else:
        balance = seamless_balance(player=player) if balance_asked else None
    return _player_bets_answer(coup=coup, balance=balance, bets=bets)


def _player_bets_answer(*, coup: Coup | None, balance: Decimal | None, bets: dict[str, Decimal]) -> JsonResponse:
    return JsonResponse(
        {
            "ok": True,
            "round_id": coup.round_id if coup is not None else None,
            "balance": str(balance) if balance is not None else None,
            "bets": {bet_type: str(amount) for bet_type, amount in bets.items()},
        }
    )


def player_endpoint(view: Callable) -> Callable:
    """Signed-in players only (staff accounts do not play); the table by its code, with its live coup (or
    ``None``); a refusal becomes its JSON error."""

    @wraps(view)
    def guarded(request: HttpRequest, code: str) -> JsonResponse:
        try:
            if not request.user.is_authenticated:
                raise NotSignedIn("sign in to play")
            if request.user.is_staff:
                raise StaffAccount("staff accounts do not play: sign in as a player")
            table, live = table_with_live_coup(code=code)
            if table is None:
                raise NoSuchTable(f"there is no table {code!r}", details={"table": code})
            return view(request, table, live, json_body(request))
        except PuntoError as error:
            return _refusal(error)
        except DatabaseError:  # e.g. the connection lost mid-request: its transaction is rolled back
            logger.exception("%s %s: database error", request.method, request.path)
            return _refusal(DatabaseUnavailable())

    return guarded


@require_http_methods(["GET", "POST"])
@player_endpoint
def bets(request: HttpRequest, table: Table, live: Coup | None, body: dict) -> JsonResponse:
    """GET: the player's balance and stakes on the live coup. POST ``{"bets": {type: amount}, "round_id",
    "request_id"}``: confirm a batch of bets, all or nothing."""
    if request.method == "GET":
        return _player_bets(request, coup=live)
    return _bet_request(request, table, live, body, kind="bet")


@require_POST
@player_endpoint
def bets_undo(request: HttpRequest, table: Table, live: Coup | None, body: dict) -> JsonResponse:
    """Cancel the player's last confirmed batch on the live coup."""
    return _bet_request(request, table, live, body, kind="undo")


@require_POST
@player_endpoint
def bets_remove(request: HttpRequest, table: Table, live: Coup | None, body: dict) -> JsonResponse:
    """Cancel all the player's bets on the live coup."""
    return _bet_request(request, table, live, body, kind="remove")


@require_POST
@player_endpoint
def bets_rebet(request: HttpRequest, table: Table, live: Coup | None, body: dict) -> JsonResponse:
    """Repeat the player's bets of their last coup at the table: ``{"multiplier": 1}`` (default) or 2."""
    return _bet_request(request, table, live, body, kind="rebet")


def _bet_request(request: HttpRequest, table: Table, live: Coup | None, body: dict, *, kind: str) -> JsonResponse:
    """The request through the bet intake (``casino.players.intake``: once per ``request_id``, if the body has one)."""
    if not bet_request_allowed(user_id=request.user.pk):
        raise TooFast(f"at most {BET_REQUEST_BURST} bet requests a second: send them again in a moment")
    if kind == "bet" and not isinstance(body.get("bets"), dict):
        raise RequestRefused('send the bets as {"bets": {"player": "10.00", ...}}', code=ErrorCode.BAD_JSON)
    future = bet_request_submit(
        IntakeRequest(
            user=request.user,
            table_code=table.code,
            kind=kind,
            round_id=body.get("round_id"),
            bets=body.get("bets"),
            multiplier=body.get("multiplier", 1),
            request_id=body.get("request_id"),
            table=table,
            live=live,
        ),
        seamless=launched_seamless_player(request),
    )
    answer = future.result()  # the request's refusal, if it was refused
    return JsonResponse({"ok": True, "round_id": answer.round_id, "balance": answer.balance, "bets": answer.own_totals})


def bet_request_allowed(*, user_id: int) -> bool:
    """A player's bet requests over HTTP, counted per second of the clock in the cache (Redis: across the
    web processes): at most a socket's burst in any one second. Should the cache fail, the request goes on
    (the intake checks it as ever): a counter out of order is no reason to refuse every bet."""
    try:
        return window_count(key=f"bet-requests:{user_id}:{int(time.time())}", timeout=2) <= BET_REQUEST_BURST
    except ValueError:  # local memory: the window expired between its two calls, a new second
        return True
    except Exception:
        logger.exception("a bet request's allowance could not be counted: the request goes on")
        return True


def _amount(amount: Decimal | None) -> str | None:
    return str(amount) if amount is not None else None


@require_GET
@player_endpoint
def history(request: HttpRequest, table: Table, live: Coup | None, body: dict) -> JsonResponse:
    """Game history: the table's latest results and the player's own latest rounds there (the coup, the bets
    and the balance after, amounts in ``currency``; no balance where a partner's seamless wallet holds it)."""
    played = table.coups.table_wide().filter(state__in=(Coup.State.RESOLVED, Coup.State.SETTLED))
    latest = played.select_related("shoe").prefetch_related("cards").order_by("-id")[:HISTORY_ROUNDS]
    rounds = player_round_history(user=request.user, table=table, limit=HISTORY_ROUNDS)
    return JsonResponse(
        {
            "results": [coup_public(coup=coup) for coup in latest],
            "rounds": [
                {
                    "round_id": recall.round_id,
                    "coup_state": recall.coup_state,
                    "played_at": recall.played_at.isoformat(),
                    "winner": recall.winner or None,
                    "player_total": recall.player_total,
                    "banker_total": recall.banker_total,
                    "cards": recall.cards,
                    "currency": recall.currency,
                    "bets": recall.bets,
                    "staked": str(recall.staked),
                    "returned": str(recall.returned),
                    "balance_before": _amount(recall.balance_before),
                    "balance_after": _amount(recall.balance_after),
                }
                for recall in rounds
            ],
        }
    )
