"""One loop deals a table at a time: the loop steps only while it holds the table, and on PostgreSQL the
table's advisory lock has one holder, goes with its connection, and is taken by the next loop that tries."""

import threading

import pytest
from django.conf import settings
from django.db import connection

from casino.lifecycle import loop
from casino.lifecycle.table_locks import LOCK_SPACE, AdvisoryTableLocks, EveryTable, table_locks
from tests.processes import wait_until


class ScriptedLocks:
    """Holds the table or not, call by call as scripted; stops the loop once the script is played."""

    def __init__(self, script: list[bool], stop: threading.Event) -> None:
        self.script, self.stop = list(script), stop

    def hold(self, *, table_id: int) -> bool:
        held = self.script.pop(0)
        if not self.script:
            self.stop.set()
        return held

    def close(self) -> None:
        pass


@pytest.mark.django_db
def test_the_loop_steps_only_while_it_holds_the_table(monkeypatch):
    steps = []
    monkeypatch.setattr(loop, "STANDBY_POLL", 0.0)
    monkeypatch.setattr(
        loop, "table_step", lambda *, table_id: steps.append(table_id) or loop.Step(loop.StepKind.WAITING, "", 0.0)
    )
    stop = threading.Event()
    script = [False, False, True, True, False, True, False, False]
    loop.run_table(table_id=7, stop=stop, locks=ScriptedLocks(script, stop))
    assert steps == [7] * script.count(True)


@pytest.mark.skipif(settings.USING_POSTGRES, reason="the embedded default: SQLite, one process")
def test_the_embedded_default_deals_every_table():
    locks = table_locks()
    assert isinstance(locks, EveryTable)
    assert all(locks.hold(table_id=table_id) for table_id in (1, 2, 3))


def lock_holder(table_id: int) -> int | None:
    """The backend pid holding the table's lock, from pg_locks (as an operator would look)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND objid = %s AND objsubid = 2"
            " AND granted",
            [LOCK_SPACE, table_id],
        )
        row = cursor.fetchone()
    return row[0] if row else None


ONE, TWO = 2_000_000_001, 2_000_000_002  # no table of another test's loop process


@pytest.mark.django_db
@pytest.mark.skipif(not settings.USING_POSTGRES, reason="PostgreSQL's advisory locks")
def test_one_holder_per_table_and_the_lock_goes_with_its_connection():
    first, second = AdvisoryTableLocks(), AdvisoryTableLocks()
    try:
        assert first.hold(table_id=ONE)
        assert not second.hold(table_id=ONE)  # stands by
        assert second.hold(table_id=TWO)  # a lock per table
        assert first.hold(table_id=ONE)  # still its own
        assert not first.hold(table_id=TWO)

        holder = lock_holder(ONE)
        with connection.cursor() as cursor:  # the first loop's connection dies (as with its host)
            cursor.execute("SELECT pg_terminate_backend(%s)", [holder])
        wait_until(lambda: second.hold(table_id=ONE), what="the second takes the table", timeout=5)
        assert lock_holder(ONE) not in (None, holder)
        assert not first.hold(table_id=ONE)  # its connection gone: it stops dealing
        assert not first.hold(table_id=ONE)  # connected again: it stands by

        second.close()  # a clean stop releases every table (as its session ends, just after)
        wait_until(lambda: first.hold(table_id=ONE) and first.hold(table_id=TWO), what="both taken", timeout=5)
    finally:
        first.close()
        second.close()
