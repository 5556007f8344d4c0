"""The fault tests' processes and the table they play: real processes on the test database and Redis."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from tables.services import table_create, table_open
from tests.processes import Process, celery_worker, python, subprocess_env
from wagering.wallets import wallet_deposit

DEPOSIT = Decimal("1000.00")


def pytest_collection_modifyitems(config, items):
    """``faults`` tests run on PostgreSQL and Redis only: their processes share the test database and broker."""
    if settings.USING_POSTGRES and settings.REDIS_URL:
        return
    skip = pytest.mark.skip(reason="fault tests need PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)")
    for item in items:
        if "faults" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def processes(transactional_db):
    """Start processes through this; whatever is still running at the end is killed (before the flush)."""
    started: list[Process] = []

    class Starter:
        def loop(self, code: str, *args: str, **env: str) -> Process:
            started.append(python("-m", "tests.faults.loop_process", code, *args, env=subprocess_env(**env)))
            return started[-1]

        def worker(self, *, queues: str = "settlement", pool: str = "solo", **env: str) -> Process:
            started.append(celery_worker(queues=queues, env=subprocess_env(**env), pool=pool))
            return started[-1]

    yield Starter()
    for process in started:
        process.kill()


@pytest.fixture(scope="module")
def settlement_worker(django_db_setup):
    """A Celery worker of the settlement queue for the module's tests, on a broker emptied of earlier tests' tasks."""
    from casino import celery_app

    celery_app.control.purge()
    worker = celery_worker(queues="settlement", env=subprocess_env())
    yield worker
    worker.kill()


@pytest.fixture
def fault_table(transactional_db):
    boss = get_user_model().objects.create_user(username="boss")
    table = table_create(code="faults", name="Faults", actor=boss, betting_seconds=2)
    return table_open(table=table, actor=boss)


@pytest.fixture
def players(transactional_db):
    users = [get_user_model().objects.create_user(username=f"punter{n}") for n in range(3)]
    for user in users:
        wallet_deposit(user=user, amount=DEPOSIT, idempotency_key=uuid.uuid4().hex, reason="faults")
    return users


@pytest.fixture
def real_worker_tasks():
    """Tasks go to the broker (emptied of earlier tests' tasks), for the worker processes."""
    from casino import celery_app

    celery_app.control.purge()
    celery_app.conf.task_always_eager = False
