"""The bet intake: a table's bet requests committed in groups.

In the last seconds of a betting window thousands of players confirm at once, and each placement holds
the coup's row lock until it commits: one transaction per bet makes the commits the wall. So each web
process queues a table's requests and one thread per table takes every request waiting (up to
``INTAKE_MAX_BATCH``) into one transaction: the table's live coup read once, the requests carried out in
arrival order (runs of bets checked against the running totals and written set-wise,
``wagering.placement_together``; undo and remove each in a savepoint of its own), a refusal recorded as
its answer and never failing the others, one commit, and only then is each request answered. Processes
on several machines stay correct: each batch holds the coup's row lock as a single placement does.

Nothing acknowledged is lost and nothing is done twice: a request is answered only after its batch
committed (a batch that fails to commit answers ``database_unavailable`` to all its requests, none of
which left anything); a request with a ``request_id`` that was committed but not answered (the process
was killed) is answered from its record when sent again (``casino.bet_requests``).

``BET_INTAKE_GROUP_COMMIT`` off (the embedded default, and most tests) carries each request out in the
caller's thread, as a batch of one: the same code, without the queue.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import Future
from contextlib import nullcontext
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError, close_old_connections, connection, transaction

from casino.bet_requests import (
    KeyTakenMeanwhile,
    PlayerBetRequest,
    bet_request_answer,
    bet_requests_answer_together,
    request_coup,
    together,
)
from casino.metrics import bet_request_count, intake_batch_observe
from partners.models import PartnerPlayer
from tables.selectors import table_with_live_coup
from wagering.errors import DATABASE_UNAVAILABLE_CODE, DATABASE_UNAVAILABLE_MESSAGE, WageringError

User = AbstractBaseUser
# Bets and rebets are written set-wise, with no savepoint; undo and remove take two or three savepoints
# (subtransactions) each, and past 64 in one transaction PostgreSQL's snapshots overflow to pg_subtrans
# (bench/README.md): a batch of them costs more per request, but stays correct.
INTAKE_MAX_BATCH = 500
INTERNAL_ERROR_MESSAGE = "the bet could not be taken because of an error on our side: nothing was changed, try again"
IDLE_SECONDS = 30  # a table's thread ends after this long without a request (its connection closed)
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class IntakeRequest:
    """A wallet player's bet request as it arrives: resolved against the table's live coup in its batch."""

    user: User
    table_code: str
    kind: str
    round_id: object = None
    bets: object = None
    multiplier: object = 1
    request_id: object = None


def bet_request_submit(request: IntakeRequest, *, seamless: PartnerPlayer | None = None) -> Future:
    """The one way in for a player's bet request: a future of its ``BetRequestAnswer``, or of the
    ``WageringError`` refusing it (counted in the metrics either way).

    Queued for its table's batch with group commit on (``queued`` tells: the caller need not be on a
    thread that may use the database); otherwise, and for a seamless wallet's player (whose bet waits
    for the partner's wallet, which must not hold up the table's batch), carried out right here."""
    future: Future = Future()
    future.add_done_callback(lambda done: _count(request.table_code, done))
    if seamless is None and queued():
        _table_intake(request.table_code).put(request, future)
    else:
        _batch_commit(request.table_code, [(request, future)], seamless=seamless)
    return future


def queued() -> bool:
    """Whether a wallet player's request goes to its table's queue (group commit on)."""
    return settings.BET_INTAKE_GROUP_COMMIT


def _count(table_code: str, done: Future) -> None:
    error = done.exception()
    bet_request_count(table=table_code, code=None if error is None else getattr(error, "code", "error"))


class _TableIntake:
    def __init__(self, table_code: str) -> None:
        self.table_code = table_code
        self.waiting: queue.SimpleQueue = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def put(self, request: IntakeRequest, future: Future) -> None:
        self.waiting.put((request, future))
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name=f"intake-{self.table_code}", daemon=True)
                self.thread.start()

    def _run(self) -> None:
        try:
            while True:
                try:
                    first = self.waiting.get(timeout=IDLE_SECONDS)
                except queue.Empty:
                    with self.lock:
                        if self.waiting.empty():
                            self.thread = None
                            return
                    continue
                batch = [first]
                while len(batch) < INTAKE_MAX_BATCH:
                    try:
                        batch.append(self.waiting.get_nowait())
                    except queue.Empty:
                        break
                try:
                    close_old_connections()
                finally:
                    _batch_commit(self.table_code, batch)
        finally:
            connection.close()


_intakes: dict[str, _TableIntake] = {}
_intakes_lock = threading.Lock()


def _table_intake(table_code: str) -> _TableIntake:
    with _intakes_lock:
        intake = _intakes.get(table_code)
        if intake is None:
            intake = _intakes[table_code] = _TableIntake(table_code)
        return intake


def _batch_commit(
    table_code: str, batch: list[tuple[IntakeRequest, Future]], *, seamless: PartnerPlayer | None = None
) -> None:
    """Carry the requests out in one transaction (``_carried_out``); answer each once it committed. A
    seamless wallet's request has no transaction around it: its services hold the coup's lock only while
    they write, never while the partner's wallet is asked."""
    started = time.monotonic()
    outcomes: list[object] = []
    answered = False

    def answer() -> None:  # first of the commit's callbacks: before the live events go out
        nonlocal answered
        answered = True
        for (_, future), outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)

    for attempt in (1, 2):  # again if a request_id was recorded by another process meanwhile: then a replay
        try:
            with transaction.atomic() if seamless is None else nullcontext():
                if seamless is None:
                    transaction.on_commit(answer)
                table, live = table_with_live_coup(code=table_code)
                outcomes = _carried_out([request for request, _ in batch], table, live, seamless)
        except Exception as error:  # nothing of the batch committed (or, past its answers, an event not sent)
            if isinstance(error, KeyTakenMeanwhile) and attempt == 1:
                continue
            if not answered:
                logger.exception("bet intake of %s: a batch of %d not committed", table_code, len(batch))
                code = DATABASE_UNAVAILABLE_CODE if isinstance(error, DatabaseError) else "internal_error"
                message = DATABASE_UNAVAILABLE_MESSAGE if isinstance(error, DatabaseError) else INTERNAL_ERROR_MESSAGE
                outcomes = [WageringError(code, message)] * len(batch)
        break
    intake_batch_observe(table=table_code, size=len(batch), seconds=time.monotonic() - started)
    if not answered:
        answer()


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
                raise WageringError("no_such_table", f"there is no table {request.table_code!r}")
            player_request = PlayerBetRequest(
                user=request.user,
                seamless=seamless,
                coup=request_coup(table=table, live=live, round_id=request.round_id),
                kind=request.kind,
                bets=request.bets,
                multiplier=request.multiplier,
                request_id=request.request_id,
            )
        except WageringError as error:
            outcomes[index] = error
            continue
        if together(player_request):
            run.append((index, player_request))
            continue
        run_answer()
        outcomes[index] = one_answer(player_request)
    run_answer()
    return outcomes
