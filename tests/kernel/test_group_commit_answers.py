"""A group commit answers each request after its batch committed: the requests of an event loop (a socket's)
on asyncio futures of that loop, all of a batch's in one call on it; the others (a view's thread) on
concurrent futures. A request whose waiter went away is skipped, never failing the others' answers."""

import asyncio
import threading
from concurrent.futures import Future

import pytest
from django.db import OperationalError
from psycopg.errors import DeadlockDetected

from kernel import group_commit

pytestmark = pytest.mark.django_db(transaction=True)


class Doubled:
    """A handler answering each number doubled, refusing negative ones."""

    def carry_out(self, table_code: str, requests: list[int]) -> list[object]:
        return [ValueError(number) if number < 0 else 2 * number for number in requests]

    def failed(self, error: BaseException) -> Exception:
        return RuntimeError("failed")


async def test_a_loops_requests_are_answered_in_one_call_per_batch(monkeypatch):
    loop = asyncio.get_running_loop()
    calls = []
    original = loop.call_soon_threadsafe
    monkeypatch.setattr(loop, "call_soon_threadsafe", lambda *args: calls.append(args) or original(*args))
    futures = [group_commit.answer_future() for _ in range(4)]
    cancelled = futures[1]
    cancelled.cancel()  # its socket closed while the batch was under way
    batch = [(number, Doubled(), future) for number, future in zip([1, 2, -3, 4], futures, strict=True)]
    committing = threading.Thread(target=group_commit._batch_commit, args=("t1", batch))
    await asyncio.to_thread(lambda: (committing.start(), committing.join()))
    assert all(isinstance(future, asyncio.Future) for future in futures)
    assert await futures[0] == 2 and await futures[3] == 8
    with pytest.raises(ValueError):
        await futures[2]
    assert cancelled.cancelled()
    assert [args[0] for args in calls].count(group_commit._resolve_on_loop) == 1


def test_a_threads_requests_are_answered_on_concurrent_futures(settings):
    settings.BET_INTAKE_GROUP_COMMIT = True
    futures = [group_commit.group_commit_submit(table_code="t2", request=n, handler=Doubled()) for n in (5, -1)]
    assert all(type(future) is Future for future in futures)
    assert futures[0].result(timeout=10) == 10
    assert isinstance(futures[1].exception(timeout=10), ValueError)


def test_a_cancelled_concurrent_future_does_not_keep_the_others_unanswered():
    futures = [Future() for _ in range(3)]
    futures[0].cancel()
    group_commit._batch_commit("t3", [(n, Doubled(), future) for n, future in zip([1, 2, 3], futures, strict=True)])
    assert [future.result(timeout=1) for future in futures[1:]] == [4, 6]


class TakenMeanwhile(Doubled):
    """A handler whose first ``conflicts`` attempts find a request_id recorded by another process meanwhile."""

    def __init__(self, conflicts: int) -> None:
        self.conflicts = conflicts

    def carry_out(self, table_code: str, requests: list[int]) -> list[object]:
        if self.conflicts:
            self.conflicts -= 1
            raise group_commit.BatchRetry
        return super().carry_out(table_code, requests)


def test_a_batch_is_carried_out_again_while_other_processes_record_its_requests_and_fails_past_its_attempts():
    futures = [Future() for _ in range(2)]
    handler = TakenMeanwhile(conflicts=group_commit.BATCH_ATTEMPTS - 1)
    group_commit._batch_commit("t4", [(n, handler, future) for n, future in zip([1, 2], futures, strict=True)])
    assert [future.result(timeout=1) for future in futures] == [2, 4]
    futures = [Future()]
    group_commit._batch_commit("t5", [(1, TakenMeanwhile(conflicts=group_commit.BATCH_ATTEMPTS), futures[0])])
    assert str(futures[0].exception(timeout=1)) == "failed"


class Deadlocked(Doubled):
    """A handler whose first attempt PostgreSQL rolls back out of a deadlock (as Django raises it), or fails
    otherwise."""

    def __init__(self, cause: Exception) -> None:
        self.cause = cause

    def carry_out(self, table_code: str, requests: list[int]) -> list[object]:
        cause, self.cause = self.cause, None
        if cause is not None:
            raise OperationalError("the database's error") from cause
        return super().carry_out(table_code, requests)


def test_a_batch_rolled_back_out_of_a_deadlock_is_carried_out_again_any_other_database_error_fails_it():
    """A request_id sent to two tables at once, or two wallets locked by two tables' batches in different orders:
    PostgreSQL cancels one batch, whose requests had nothing wrong with them."""
    futures = [Future() for _ in range(2)]
    handler = Deadlocked(DeadlockDetected("deadlock detected"))
    group_commit._batch_commit("t6", [(n, handler, future) for n, future in zip([1, 2], futures, strict=True)])
    assert [future.result(timeout=1) for future in futures] == [2, 4]
    failed = Future()
    group_commit._batch_commit("t7", [(1, Deadlocked(ConnectionResetError("gone")), failed)])
    assert str(failed.exception(timeout=1)) == "failed"
