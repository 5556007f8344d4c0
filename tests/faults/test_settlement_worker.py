"""A Celery worker killed (SIGKILL) in the middle of a settlement: the coup is still settled, exactly once.

The worker is held inside the task deterministically: the test holds the coup's row lock from its own
connection, so the task waits on it in ``coup_settle`` until the worker is killed and the lock released.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import psycopg
import pytest
from django.utils import timezone

from casino.lifecycle import loop
from tables.models import Coup
from tables.services import table_close
from tests.processes import database_url_of_test_database, wait_until
from wagering.checks import ledger_check, settlement_check
from wagering.models import LedgerTransaction
from wagering.placement import bet_batch_place

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]

BETS = [{"player": "10.00"}, {"banker": "20.00"}, {"player": "5.00", "tie": "1.00"}]


@pytest.fixture
def real_worker_tasks(broker_emptied):
    """Tasks go to the broker, for the worker processes, not run in the test's process."""
    from casino import celery_app

    celery_app.conf.task_always_eager = False


@pytest.fixture
def broker_emptied():
    from casino import celery_app

    celery_app.control.purge()


def resolved_coup_with_bets(table, players) -> Coup:
    """Step the table (in this process) to a resolved coup; its settlement task waits on the broker."""
    while not Coup.objects.filter(table=table, state=Coup.State.BETTING).exists():
        loop.table_step(table_id=table.pk)
    coup = Coup.objects.get(table=table, state=Coup.State.BETTING)
    for player, bets in zip(players, BETS, strict=True):
        bet_batch_place(user=player, coup=coup, bets=bets)
    Coup.objects.filter(pk=coup.pk).update(betting_closes_at=timezone.now())  # the betting seconds have passed
    while loop.table_step(table_id=table.pk).kind is not loop.StepKind.RESOLVED:
        pass
    return Coup.objects.get(pk=coup.pk)


def tasks_waiting_on_a_lock() -> int:
    """Backends waiting on a lock (read outside any transaction: pg_stat_activity is fixed within one)."""
    with psycopg.connect(database_url_of_test_database(), autocommit=True) as watcher:
        row = watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchone()
    return row[0]


def pool_children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


@pytest.mark.parametrize("kill", ["pool-child", "whole-worker-redelivered", "whole-worker-resent-by-the-loop"])
def test_a_worker_killed_mid_settlement_settles_the_coup_once(processes, real_worker_tasks, fault_table, players, kill):
    coup = resolved_coup_with_bets(fault_table, players)
    with psycopg.connect(database_url_of_test_database()) as locker:
        locker.execute("SELECT id FROM tables_coup WHERE id = %s FOR UPDATE", [coup.pk])
        worker = processes.worker(pool="prefork" if kill == "pool-child" else "solo")
        wait_until(tasks_waiting_on_a_lock, what="the worker settling the coup")
        if kill == "pool-child":  # the worker sees its child lost and puts the task back (reject_on_worker_lost)
            (child,) = pool_children(worker.popen.pid)
            os.kill(child, signal.SIGKILL)
        else:
            worker.kill()
        locker.rollback()
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.RESOLVED
    if kill == "whole-worker-redelivered":  # unacknowledged on Redis: delivered again after the visibility timeout
        processes.worker(CELERY_VISIBILITY_TIMEOUT="1")
    elif kill == "whole-worker-resent-by-the-loop":  # still unacknowledged (an hour): the loop sends it again
        processes.worker()
        Coup.objects.filter(pk=coup.pk).update(resolved_at=timezone.now() - loop.SETTLEMENT_RETRY_AFTER)
        table_close(table=fault_table, reason="no further coup")
        assert loop.table_step(table_id=fault_table.pk).kind is loop.StepKind.TABLE_CLOSED
    wait_until(lambda: Coup.objects.get(pk=coup.pk).state == Coup.State.SETTLED, what="the coup settled")

    settlements = LedgerTransaction.objects.filter(coup=coup, kind=LedgerTransaction.Kind.SETTLEMENT)
    assert settlements.count() == 1
    assert {bet.settlement.transaction_id for bet in coup.bets.select_related("settlement")} == {settlements.get().pk}
    assert settlement_check().problems == []
    assert ledger_check().ok
