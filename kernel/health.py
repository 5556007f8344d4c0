"""What ``/healthz`` checks besides the database: Redis, when the platform runs on it (``REDIS_URL``).

A web process cut off from Redis can still write bets, but its players' live feed is gone (events are published
and received through Redis) and its sessions and rate limits are read there. Failing the health check lets the
balancer take it out and close its sockets (``deploy/haproxy.cfg``: ``on-marked-down shutdown-sessions``), so
its players reconnect to a process that still sees Redis. The check waits at most ``REDIS_CHECK_SECONDS``:
a partition drops packets silently, and a check that hung would be no answer at all.
"""

from __future__ import annotations

import redis
from django.conf import settings

REDIS_CHECK_SECONDS = 1.0

_clients: dict[str, redis.Redis] = {}


def redis_reachable() -> bool:
    """True when Redis answers a PING in time, or when the platform does not use Redis (the embedded default)."""
    url = settings.REDIS_URL
    if not url:
        return True
    client = _clients.get(url)
    if client is None:
        client = _clients.setdefault(
            url,
            redis.Redis.from_url(
                url, socket_connect_timeout=REDIS_CHECK_SECONDS, socket_timeout=REDIS_CHECK_SECONDS, retry=None
            ),
        )
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False
