"""Group commit: a table's requests queued in the process and carried out in batches, one transaction each.

In the last seconds of a betting window thousands of players confirm at once, and each placement holds
the coup's row lock until it commits: one transaction per bet makes the commits the wall. So each web
process queues a table's requests and one thread per table takes every request waiting (up to
``MAX_BATCH``) into one transaction, hands each run of requests of one kind to its ``Handler`` in arrival
order (the player's bet intake, the partners' bets), commits, and only then answers each request.
Processes on several machines stay correct: each batch holds the coup's row lock as a single placement
does.

Nothing acknowledged is lost and nothing is done twice: a request is answered only after its batch
committed; a batch that fails to commit answers every request with its handler's ``failed`` error, none
of which left anything (a handler that finds a request recorded meanwhile by another process raises
``BatchRetry``: the batch is rolled back and carried out again, the request then a replay; so is a batch that
PostgreSQL rolled back out of a deadlock; ``BATCH_ATTEMPTS`` in all).

A request submitted from an event loop (a socket's) is answered on an asyncio future of that loop, and a
batch resolves all of a loop's futures in one ``call_soon_threadsafe``: one wake-up of the loop per batch,
not a thread-safe future, its condition and a wake-up per request. From any other thread (a view, a test)
it is a ``concurrent.futures.Future``.

Off (``BET_INTAKE_GROUP_COMMIT``, the embedded default and most tests), each request is carried out in the
caller's thread as a batch of one: the same code, without the queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import queue
import threading
import time
from collections.abc import Iterable
from concurrent.futures import Future, InvalidStateError
from typing import Any, Protocol

from django.conf import settings
from django.db import close_old_connections, connection, transaction

from kernel.metrics import intake_batch_observe

# Runs of bets carry no savepoint each; requests of other kinds (undo, remove) take two or three, and past
# 64 in one transaction PostgreSQL's snapshots overflow to pg_subtrans (bench/README.md): a batch of them
# costs more per request, but stays correct.
MAX_BATCH = 500
IDLE_SECONDS = 30  # a table's thread ends after this long without a request (its connection closed)
logger = logging.getLogger(__name__)
Answer = Future | asyncio.Future  # a request's answer to come: awaited on its loop, or waited for in a thread


class Handler(Protocol):
    """What carries out one kind of request, given to ``group_commit_submit`` with each request."""

    def carry_out(self, table_code: str, requests: list[Any]) -> list[object]:
        """Each request's answer, or the exception refusing it, in order: inside the batch's transaction."""

    def failed(self, error: BaseException) -> Exception:
        """What every request of a batch that did not commit is answered."""


class BatchRetry(Exception):
    """Raised by a handler: roll the batch back and carry it out once more (``BATCH_ATTEMPTS`` in all: a
    request_id another process recorded meanwhile is a replay the next attempt answers, and while a crowd
    resends through another host, as one host lets its sockets go, more may be recorded during that one)."""


BATCH_ATTEMPTS = 4
DEADLOCK_DETECTED = "40P01"  # PostgreSQL's SQLSTATE


def _again(error: BaseException) -> bool:
    """Whether a batch that did not commit is carried out again: a handler's ``BatchRetry``, or PostgreSQL's
    deadlock detected (it rolled this batch back so that the other could go on: a player's request_id, or a
    partner's key, sent to two tables at once; two players' wallets locked by two tables' batches in different
    orders). The next attempt waits for the other's commit, and answers a replay where it recorded the key."""
    return isinstance(error, BatchRetry) or getattr(error.__cause__, "sqlstate", None) == DEADLOCK_DETECTED


def group_commit_on() -> bool:
    return settings.BET_INTAKE_GROUP_COMMIT


def group_commit_submit(*, table_code: str, request: Any, handler: Handler) -> Answer:
    """A future of the request's answer (or of the exception refusing it): queued for the table's next batch
    with group commit on, else carried out at once, in a transaction of its own. On an event loop's thread
    an asyncio future of that loop (await it), else a ``concurrent.futures.Future``."""
    future = answer_future()
    if group_commit_on():
        _table_queue(table_code).put((request, handler, future))
    else:
        _batch_commit(table_code, [(request, handler, future)])
    return future


def answer_future() -> Answer:
    """A future for a request's answer, as ``group_commit_submit`` makes it (see there)."""
    try:
        return asyncio.get_running_loop().create_future()
    except RuntimeError:  # no event loop runs in this thread
        return Future()


def futures_resolve(answers: Iterable[tuple[Answer, object]]) -> None:
    """Answer each request with its outcome: the future's result, or the exception it raises (a refusal).
    The asyncio futures of one loop are resolved together, in one call on that loop. A future cancelled
    meanwhile (its socket closed) is left: what its request did stays done."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[Answer, object]]] = {}
    for future, outcome in answers:
        if isinstance(future, asyncio.Future):
            by_loop.setdefault(future.get_loop(), []).append((future, outcome))
        else:
            with contextlib.suppress(InvalidStateError):  # cancelled by its waiter
                _resolve(future, outcome)
    for loop, on_loop in by_loop.items():
        try:
            loop.call_soon_threadsafe(_resolve_on_loop, on_loop)
        except RuntimeError:  # the loop is closed: nobody waits for these answers any more
            logger.warning("%d answers not given: their event loop is closed", len(on_loop))


def _resolve_on_loop(answers: list[tuple[asyncio.Future, object]]) -> None:
    for future, outcome in answers:
        if not future.done():
            _resolve(future, outcome)


def _resolve(future: Answer, outcome: object) -> None:
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


class _TableQueue:
    def __init__(self, table_code: str) -> None:
        self.table_code = table_code
        self.waiting: queue.SimpleQueue = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def put(self, entry: tuple) -> None:
        self.waiting.put(entry)
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
                while len(batch) < MAX_BATCH:
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


_queues: dict[str, _TableQueue] = {}
_queues_lock = threading.Lock()


def _table_queue(table_code: str) -> _TableQueue:
    with _queues_lock:
        table_queue = _queues.get(table_code)
        if table_queue is None:
            table_queue = _queues[table_code] = _TableQueue(table_code)
        return table_queue


def _batch_commit(table_code: str, batch: list[tuple[Any, Handler, Answer]]) -> None:
    """Carry the batch out in one transaction, run by run; answer each request once it committed."""
    started = time.monotonic()
    outcomes: list[object] = []
    answered = False

    def answer() -> None:  # first of the commit's callbacks: before the live events go out
        nonlocal answered
        answered = True
        futures_resolve(zip((future for _, _, future in batch), outcomes, strict=True))

    for attempt in range(1, BATCH_ATTEMPTS + 1):
        try:
            with transaction.atomic():
                transaction.on_commit(answer)
                outcomes = []
                for handler, run in itertools.groupby(batch, key=lambda entry: entry[1]):
                    outcomes += handler.carry_out(table_code, [request for request, _, _ in run])
        except Exception as error:  # nothing of the batch committed (or, past its answers, an event not sent)
            if _again(error) and attempt < BATCH_ATTEMPTS and not answered:
                continue
            if not answered:
                logger.exception("group commit of %s: a batch of %d not committed", table_code, len(batch))
                outcomes = [handler.failed(error) for _, handler, _ in batch]
        break
    intake_batch_observe(table=table_code, size=len(batch), seconds=time.monotonic() - started)
    if not answered:
        answer()
