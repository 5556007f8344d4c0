"""``/healthz`` answers 404 when this process cannot reach Redis, so the balancer sends it no new connection while
it lets its sockets go itself (issue 33, scenario 3: a web host cut off from Redis; ``kernel.socket_shedding``);
it never hangs on a Redis that does not answer.
A database no web host reaches (scenario 5: PostgreSQL restarted) keeps every host in, with a 200 that says so:
only a host cut off from a database the others reach is taken out."""

from __future__ import annotations

import os
import socket
import time
import uuid

import pytest

from kernel import health, redis_watch

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_watch(monkeypatch):
    """The check as a process without its own watch over Redis answers it: by a PING of its own, at the
    ``REDIS_URL`` a test sets (``test_socket_shedding`` has the web process's answer, by its watch)."""
    monkeypatch.setattr(redis_watch, "_watch", None)


@pytest.fixture
def database_lost(monkeypatch):
    """This process's database not answering (stopped, or cut off), as ``database_answers`` finds it."""

    def lost():
        monkeypatch.setattr(health, "database_answers", lambda: False)

    return lost


def check(client, host: str):
    """``/healthz`` as the balancer checks ``host`` (the address it reaches the web host at)."""
    return client.get("/healthz", HTTP_HOST="testserver", SERVER_NAME=host, SERVER_PORT="8000")


def test_without_redis_the_embedded_default_is_healthy(client, settings):
    settings.REDIS_URL = ""
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


def test_a_redis_that_does_not_answer_fails_the_check_within_a_second_or_so(client, settings, silent_redis):
    settings.REDIS_URL = silent_redis
    started = time.monotonic()
    response = client.get("/healthz")
    assert response.status_code == 404  # deploy/haproxy.cfg: http-check disable-on-404
    assert response.json() == {"status": "unavailable", "database": response.json()["database"], "redis": "unreachable"}
    assert time.monotonic() - started < 5  # the check's own deadline is 1 s: it does not wait for TCP to give up


def test_a_refused_connection_fails_the_check(client, settings):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    settings.REDIS_URL = f"redis://127.0.0.1:{port}/0"
    assert client.get("/healthz").status_code == 404


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs the real Redis (the PostgreSQL + Redis pass)")
def test_with_redis_answering_the_check_passes(client, settings):
    settings.REDIS_URL = os.environ["REDIS_URL"]
    assert client.get("/healthz").status_code == 200


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the shared cache is on Redis only with REDIS_URL")
def test_a_cache_call_to_a_redis_that_does_not_answer_fails_within_seconds(settings, silent_redis):
    from kernel.redis_cache import RedisCache

    cache = RedisCache(silent_redis, {**settings.CACHES["default"], "LOCATION": silent_redis})
    started = time.monotonic()
    with pytest.raises(Exception, match=r"[Tt]imeout|timed out"):
        cache.get("session-key")
    assert time.monotonic() - started < 10  # its socket timeout is 2 s (retries included), not TCP's minutes


def test_a_database_no_host_reaches_is_reported_but_keeps_the_host_in(client, database_lost):
    host = f"web-{uuid.uuid4().hex}"
    assert check(client, host).json()["status"] == "ok"
    database_lost()
    for _ in range(3):  # the balancer takes a host out after 2 failed checks: none fails
        response = check(client, host)
        assert response.status_code == 200
        assert response.json() == {"status": "degraded", "database": "unreachable"}


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the hosts' checks meet in Redis")
def test_a_host_cut_off_from_a_database_another_host_reaches_fails_the_check(client, settings, monkeypatch):
    settings.REDIS_URL = os.environ["REDIS_URL"]
    cut_off, other = f"web-{uuid.uuid4().hex}", f"web-{uuid.uuid4().hex}"
    answers = health.database_answers
    monkeypatch.setattr(health, "database_answers", lambda: False)
    assert check(client, cut_off).status_code == 200  # its first failed check: maybe the database is away for all
    for _ in range(2):
        monkeypatch.setattr(health, "database_answers", answers)
        assert check(client, other).status_code == 200  # the other host reaches it meanwhile
        monkeypatch.setattr(health, "database_answers", lambda: False)
        response = check(client, cut_off)
        assert response.status_code == 503
        assert response.json() == {"status": "unavailable", "database": "unreachable"}
    monkeypatch.setattr(health, "database_answers", answers)
    assert check(client, cut_off).status_code == 200  # reached again: back in
