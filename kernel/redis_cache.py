"""The shared cache on Redis (``CACHES`` with ``REDIS_URL``): Django's ``RedisCache`` with one client and one
connection pool per server for the whole process.

Django makes a cache object per thread and per asynchronous context (``caches`` is an ``asgiref.Local``), and
each made its own ``redis.ConnectionPool``: every HTTP request and every socket's connect opened a new TCP
connection to Redis to read its session (a crowd of 500 players reconnecting at once spent a tenth of a web
host's CPU connecting to Redis). Here each cache object hands its commands to the process's client for its
servers and options, built once; a client is thread-safe (each command takes a connection from the pool), and
the pool starts afresh in a forked child (redis-py checks the process id).
"""

from __future__ import annotations

import threading

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.utils.functional import cached_property

_clients: dict[tuple, RedisCacheClient] = {}
_clients_lock = threading.Lock()


class _ClientsReused(RedisCacheClient):
    """A ``redis.Redis`` client built once per pool, not on every call (building one fills its ~170 response
    callbacks: a third of a millisecond of CPU on a request that reads its session and counts a rate)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write: bool = False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients.setdefault(id(pool), self._client(connection_pool=pool))
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = _ClientsReused

    @cached_property
    def _cache(self) -> RedisCacheClient:
        config = (tuple(self._servers), repr(sorted(self._options.items())))
        with _clients_lock:
            client = _clients.get(config)
            if client is None:
                client = _clients[config] = self._class(self._servers, **self._options)
        return client
