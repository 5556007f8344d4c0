"""What ``/healthz`` decides besides answering: Redis, when the platform runs on it (``REDIS_URL``), and what a
database this process cannot reach means.

A web process cut off from Redis can still write bets, but its players' live feed is gone (events are published
and received through Redis) and its sessions and rate limits are read there. It answers 404: the balancer sends
it no new connection but keeps the open ones (``deploy/haproxy.cfg``: ``http-check disable-on-404``), which the
process lets go itself a few at a time (``kernel.socket_shedding``), so that its players reconnect to a process
that still sees Redis without all landing there in the same instant. A PING waits at most 1 s
(``kernel.redis_watch``): a partition drops packets silently, and a check that hung would be no answer at all.

A database that does not answer fails the check (503) only if another web host reaches it: then this one is the
odd one out (cut off from it), and its players are better served elsewhere: the balancer marks it down and closes
its sockets (``on-marked-down shutdown-sessions``, as for a host that does not answer at all). When no host
reaches it (PostgreSQL restarted, failed over), no host is better than another: taking them all out would close
every socket at once for nothing and bring every player back in the same instant when it returns. They stay in:
bets are refused ``database_unavailable`` meanwhile and play resumes on the open sockets when it is back. Every
check that reaches the database counts in Redis (``DATABASE_REACHED_KEY``); a host that cannot reach it notes the
count at each of its checks, and fails when it grew since its last one (a host reached the database in between).
"""

from __future__ import annotations

from contextlib import suppress

import psycopg
import redis
from django.conf import settings
from django.db import Error, connection

from kernel.redis_watch import redis_answers, redis_checking_client, redis_lost, redis_watched

DATABASE_CHECK_SECONDS = 0.5  # a connection from the pool waited for at most this (a healthy one answers in ms)
DATABASE_REACHED_KEY = "health:database-reached"
DATABASE_LOST_KEY = "health:database-lost:"  # + the host: the count at its last check that failed
DATABASE_LOST_SECONDS = 10  # a few checks' time (``deploy/haproxy.cfg``: every 2 s): a note older than that is void

REDIS_LOST = 404  # the balancer's soft stop (``http-check disable-on-404``): no new connection, the open ones kept

_clients: dict[str, redis.Redis] = {}


def _client() -> redis.Redis | None:
    url = settings.REDIS_URL
    if not url:
        return None
    client = _clients.get(url)
    if client is None:
        client = _clients.setdefault(url, redis_checking_client(url))
    return client


def redis_reachable() -> bool:
    """True when Redis answers a PING in time, or when the platform does not use Redis (the embedded default)."""
    client = _client()
    return client is None or redis_answers(client)


def database_answers() -> bool:
    """True when the database answers a ``SELECT 1`` in time: from the pool, a connection is waited for at most
    ``DATABASE_CHECK_SECONDS`` (the requests' 10 s would outlast the balancer's check)."""
    pool = getattr(connection, "pool", None)  # PostgreSQL's, when pooled
    try:
        if pool is None:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        else:
            pool.open()  # as Django opens it on its first connection (a no-op once open)
            with pool.connection(timeout=DATABASE_CHECK_SECONDS) as pooled:
                pooled.execute("SELECT 1")
    except (Error, psycopg.Error):  # the pool's PoolTimeout is a psycopg.OperationalError
        if pool is None:
            connection.close()  # no request's end closes it here (``kernel.http``): the next check connects anew
        return False
    return True


def health_answer(*, host: str) -> tuple[int, dict]:
    """``/healthz``'s status and body: 200 when this process reaches Redis and the database; 404 when it cannot
    reach Redis (no new connection; it lets its sockets go itself): as its watch finds it (two PINGs in a row
    unanswered: one slow answer takes no host out), or without a watch (no web process: the test client) as
    a PING now finds it; 503 when it cannot reach the database that another web host reaches (taken out, its
    sockets closed). A database no host reaches is reported
    (``"database": "unreachable"``) with a 200: no host would serve better. ``host``: the address the balancer
    checks this web host at."""
    if redis_lost() if redis_watched() else not redis_reachable():
        return REDIS_LOST, {"status": "unavailable", "database": connection.vendor, "redis": "unreachable"}
    if not database_answers():
        if database_reached_elsewhere(host=host):
            return 503, {"status": "unavailable", "database": "unreachable"}
        return 200, {"status": "degraded", "database": "unreachable"}
    database_reached(host=host)
    return 200, {"status": "ok", "database": connection.vendor}


def database_reached(*, host: str) -> None:
    """Count this check's reach of the database where every web host sees it (and forget ``host``'s note of
    an outage). ``host``: the address the balancer checks this web host at, the same for all its workers."""
    client = _client()
    if client is not None:
        with suppress(redis.RedisError, OSError):  # Redis not answering: not counted (the process's watch decides)
            client.pipeline().incr(DATABASE_REACHED_KEY).delete(DATABASE_LOST_KEY + host).execute()


def database_reached_elsewhere(*, host: str) -> bool:
    """For a check that could not reach the database: True when another web host reached it since ``host``'s
    last check (its first failed check is given the benefit of the doubt). Without Redis, there is no other."""
    client = _client()
    if client is None:
        return False
    try:
        count = int(client.get(DATABASE_REACHED_KEY) or 0)
        before = client.set(DATABASE_LOST_KEY + host, count, ex=DATABASE_LOST_SECONDS, get=True)
    except (redis.RedisError, OSError):  # Redis not answering either: nobody can tell, the benefit of the doubt
        return False
    return before is not None and count > int(before)
