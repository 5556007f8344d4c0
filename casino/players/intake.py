"""The players' bet intake: a table's bet requests committed in groups (``kernel.group_commit``).

In each batch, the table's live coup is read once and the requests are carried out in arrival order: runs
of bets and rebets from the players' own wallets checked against the running totals and written set-wise
(``casino.players.bet_requests.bet_requests_answer_together``), any other request (undo, remove, a bet alone) on
its own, in savepoints of its own. A refusal is recorded as its answer and never fails the others. A
request with a ``request_id`` that was committed but not answered (the process was killed) is answered
from its record when sent again (``casino.players.bet_requests``).
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError

from casino.players.bet_requests import (
    PlayerBetRequest,
    bet_request_answer,
    bet_request_replayed,
    bet_requests_answer_together,
    request_coup,
    together,
)
from casino.players.errors import NoSuchTable
from kernel.errors import DatabaseUnavailable, ErrorCode, PuntoError
from kernel.group_commit import Answer, answer_future, futures_resolve, group_commit_on, group_commit_submit
from kernel.live import answered_on_sockets
from kernel.metrics import bet_request_count
from partners.models import PartnerPlayer
from tables.models import Coup, Table
from tables.selectors import table_with_live_coup_for_batch
from wagering.errors import WageringError
from wagering.wallets import WALLET_EVENT

User = AbstractBaseUser
logger = logging.getLogger(__name__)
# A player's bet requests: a burst, then a steady rate (a person taps a few times a second; more is a
# script flooding the table's intake). A socket counts its own (``casino.players.table_socket``); the HTTP endpoints
# count a player's across the web processes (``casino.players.api``).
BET_REQUEST_BURST = 20
BET_REQUESTS_PER_SECOND = 10
INTERNAL_ERROR_MESSAGE = "the bet could not be taken because of an error on our side: nothing was changed, try again"


@dataclass(frozen=True)
class IntakeRequest:
    """A wallet player's bet request as it arrives: resolved against the table's live coup in its batch
    (``_batch_read``)."""

    user: User
    table_code: str
    kind: str
    round_id: object = None
    bets: object = None
    multiplier: object = 1
    request_id: object = None
    answered_on: str | None = None  # the channel name of the socket its answer goes to, if one
    # The table and its live coup as the request's own thread read them (an HTTP request's), if it did.
    table: Table | None = None
    live: Coup | None = None


def bet_request_submit(request: IntakeRequest, *, seamless: PartnerPlayer | None = None) -> Answer:
    """The one way in for a player's bet request: a future of its ``BetRequestAnswer``, or of the
    ``PuntoError`` refusing it (counted in the metrics either way); on an event loop's thread an asyncio
    future to await (``kernel.group_commit``).

    Queued for its table's batch with group commit on (``queued`` tells: the caller need not be on a
    thread that may use the database); otherwise, and for a seamless wallet's player (whose bet waits
    for the partner's wallet, which must not hold up the table's batch), carried out right here."""
    if seamless is None:
        future = group_commit_submit(table_code=request.table_code, request=request, handler=PLAYERS_BETS)
    else:  # no transaction around it: its services hold the coup's lock only while they write
        future = answer_future()
        try:
            table, live = _batch_read(request.table_code, [request])
            outcome = _carried_out([request], table, live, seamless)[0]
        except Exception as error:  # a bug, or the database gone: answered as a batch that failed is
            logger.exception("a seamless wallet's bet request at %s failed", request.table_code)
            outcome = PLAYERS_BETS.failed(error)
        futures_resolve([(future, outcome)])
    future.add_done_callback(lambda done: _count(request.table_code, done))
    return future


def queued() -> bool:
    """Whether a wallet player's request goes to its table's queue (group commit on)."""
    return group_commit_on()


def _count(table_code: str, done: Answer) -> None:
    if done.cancelled():  # its socket closed before the answer: counted by nobody
        return
    error = done.exception()
    bet_request_count(table=table_code, code=None if error is None else getattr(error, "code", "error"))


class _PlayersBets:
    """The group commit's handler of the players' requests."""

    def carry_out(self, table_code: str, requests: list[IntakeRequest]) -> list[object]:
        table, live = _batch_read(table_code, requests)
        with answered_on_sockets(event_type=WALLET_EVENT, channels=_answered_on(requests)):
            return _carried_out(requests, table, live, None)

    def failed(self, error: BaseException) -> Exception:
        if isinstance(error, DatabaseError):
            return DatabaseUnavailable()
        return PuntoError(INTERNAL_ERROR_MESSAGE, code=ErrorCode.INTERNAL_ERROR)


PLAYERS_BETS = _PlayersBets()


def _batch_read(table_code: str, requests: list[IntakeRequest]) -> tuple[Table | None, Coup | None]:
    """The table and live coup a batch is carried out on (a socket's request reads nothing: the batch does)."""
    reads = [(request.table, request.live) for request in requests]
    return table_with_live_coup_for_batch(code=table_code, reads=reads)


def _answered_on(requests: list[IntakeRequest]) -> dict[int, str]:
    """The players whose one request in the batch is answered on a socket: its answer carries their new
    balance, so their wallet event skips that socket (``kernel.live.answered_on_sockets``)."""
    asked = Counter(request.user.pk for request in requests)
    return {r.user.pk: r.answered_on for r in requests if r.answered_on is not None and asked[r.user.pk] == 1}


def _replayed_else(request: IntakeRequest, error: PuntoError) -> object:
    """A request refused because its coup is no longer live: a resend of one carried out on that coup gets its
    first answer; any other request, ``error``."""
    if error.code not in (ErrorCode.ROUND_CHANGED, ErrorCode.NO_LIVE_COUP):
        return error
    try:
        replayed = bet_request_replayed(
            user=request.user,
            kind=request.kind,
            request_id=request.request_id,
            round_id=request.round_id,
            bets=request.bets,
            multiplier=request.multiplier,
        )
    except WageringError as refusal:
        return refusal
    return error if replayed is None else replayed


def _carried_out(requests: list[IntakeRequest], table, live, seamless: PartnerPlayer | None) -> list[object]:
    """Each request's answer, or the error refusing it, in arrival order: runs of bets and rebets from our own
    wallets answered together, set-wise (a refusal writes nothing but its record); any other request, and a
    bet alone, on its own, in savepoints of its own (a refusal rolls back only its own writes)."""
    outcomes: list[object] = [None] * len(requests)
    run: list[tuple[int, PlayerBetRequest]] = []

    def run_answer() -> None:
        if len(run) > 1:
            answers = bet_requests_answer_together([request for _, request in run])
            for (index, _), outcome in zip(run, answers, strict=True):
                outcomes[index] = outcome
        elif run:  # one alone: its one-statement placement costs fewer round trips
            outcomes[run[0][0]] = one_answer(run[0][1])
        run.clear()

    def one_answer(request: PlayerBetRequest) -> object:
        try:
            return bet_request_answer(request)
        except WageringError as error:
            return error

    for index, request in enumerate(requests):
        try:
            if table is None:
                raise NoSuchTable(f"there is no table {request.table_code!r}")
            player_request = PlayerBetRequest(
                user=request.user,
                seamless=seamless,
                coup=request_coup(table=table, live=live, round_id=request.round_id),
                kind=request.kind,
                bets=request.bets,
                multiplier=request.multiplier,
                request_id=request.request_id,
            )
        except PuntoError as error:
            outcomes[index] = _replayed_else(request, error)
            continue
        if together(player_request):
            run.append((index, player_request))
            continue
        run_answer()
        outcomes[index] = one_answer(player_request)
    run_answer()
    return outcomes
