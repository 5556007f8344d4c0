"""Celery tasks: each on its own queue with workers of its own, each with time limits that fit its work."""

from __future__ import annotations

import re

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from casino import celery_app
from casino.lifecycle import settlement
from casino.lifecycle import tasks as casino_tasks
from partners import tasks as partner_tasks
from partners import wallet_sending, webhook_http
from tables.models import Coup
from tests.factories import CoupFactory, coup_deal_and_resolve
from tests.processes import ROOT
from tests.wagering.test_settlement import PLAYER_NATURAL_9, bettor
from wagering import tasks
from wagering.checks import ledger_check, settlement_check
from wagering.models import LedgerTransaction

QUEUES = {
    "wagering.tasks.coup_settle": "settlement",
    "wagering.tasks.webhook_delivery_send": "webhooks",
    "wagering.tasks.table_day_report_build": "reports",
    "wagering.tasks.shoe_report_build": "reports",
    "wagering.tasks.day_reports_build": "reports",
    "wagering.tasks.bet_requests_prune": "reports",
    "partners.tasks.wallet_transaction_send": "wallet",
    "partners.tasks.wallet_transactions_resend": "wallet",
    "partners.tasks.reconciliation_report_build": "reports",
    "casino.tasks.ledger_roots_seal": "reports",
    "casino.tasks.play_sessions_ended_tell": "webhooks",
    "casino.tasks.rng_idle_shoes_close": "settlement",
}


def project_tasks() -> dict:
    return {name: task for name, task in celery_app.tasks.items() if not name.startswith("celery.")}


def queue_of(name: str) -> str:
    return celery_app.amqp.router.route({}, name)["queue"].name


def test_every_task_is_routed_to_its_queue():
    assert set(project_tasks()) == set(QUEUES)  # a new task gets a route (and a line here)
    assert {name: queue_of(name) for name in project_tasks()} == QUEUES
    assert queue_of("a.task.nobody.routed") == "reports"  # never settlement's


def test_every_task_has_a_soft_and_a_hard_time_limit_that_fit_its_work():
    for name, task in project_tasks().items():
        assert 0 < task.soft_time_limit < task.time_limit, name
    assert casino_tasks.coup_settle_task.time_limit <= 60
    assert webhook_http.ATTEMPT_DEADLINE_SECONDS < partner_tasks.webhook_delivery_send.soft_time_limit <= 20
    assert tasks.day_reports_build.soft_time_limit >= 60
    assert wallet_sending.ATTEMPT_SECONDS < partner_tasks.wallet_transaction_send.soft_time_limit <= 20
    assert 0 < settings.CELERY_TASK_SOFT_TIME_LIMIT < settings.CELERY_TASK_TIME_LIMIT  # for any task to come


def test_the_procfile_runs_workers_for_each_queue_and_each_queue_only():
    processes = dict(line.split(": ", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line)
    workers = {name: command for name, command in processes.items() if " worker " in command}
    queues = {name: re.search(r"--queues (\S+)", command).group(1) for name, command in workers.items()}
    assert queues == {"worker": "settlement", "webhooks": "webhooks", "wallet": "wallet", "reports": "reports"}
    for command in workers.values():
        assert re.search(r"--concurrency \$\{CELERY_[A-Z]+_CONCURRENCY:-\d+\}", command)
        assert "--pool" not in command  # prefork: the pool that enforces time limits


@pytest.fixture
def eager_retries():
    """Eager Celery runs a retry at once when the task's exceptions do not propagate."""
    propagates = celery_app.conf.task_eager_propagates
    celery_app.conf.task_eager_propagates = False
    yield
    celery_app.conf.task_eager_propagates = propagates


@pytest.mark.django_db(transaction=True)
def test_a_settlement_cut_by_its_soft_time_limit_leaves_nothing_and_is_retried(monkeypatch, eager_retries):
    """The soft limit strikes after the ledger and the bets are written: all of it rolls back, and the retry
    settles the coup once."""
    coup = CoupFactory()
    bettor(coup, {"player": "100"})
    bettor(coup, {"banker": "50", "tie": "5"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    events_enqueue, strikes = settlement.webhook_events_enqueue, []

    def late(**kwargs):
        if not strikes:
            strikes.append(LedgerTransaction.objects.filter(kind="settlement").count())
            raise SoftTimeLimitExceeded
        return events_enqueue(**kwargs)

    monkeypatch.setattr(settlement, "webhook_events_enqueue", late)
    casino_tasks.coup_settle_task.delay(coup.pk)
    assert strikes == [1]  # struck with the settlement written, uncommitted
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.SETTLED
    assert LedgerTransaction.objects.filter(kind="settlement").count() == 1
    assert settlement_check().problems == [] and ledger_check().ok
