"""Shared fixtures. Services are tested against the configured database (SQLite or PostgreSQL)."""

import pytest


@pytest.fixture(autouse=True)
def celery_in_process():
    """Tasks run in the test's process (settlement included), on Redis as on the embedded default.

    Tests of a real worker process opt out by setting ``task_always_eager`` back to False.
    """
    from casino import celery_app

    always_eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = always_eager


@pytest.fixture(autouse=True)
def webhooks_to_loopback(settings):
    """The tests' webhook receivers listen on 127.0.0.1, and names like partner.example do not
    resolve here; tests of the target guard turn it back on."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
