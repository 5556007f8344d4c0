"""The shared cache on Redis (``CACHES`` with ``REDIS_URL``): Django's ``RedisCache``, its ``redis.Redis`` client
built once per server instead of on every call (building one fills its ~170 response callbacks: a third of a
millisecond of CPU on a request that reads its session and counts a rate). A client is thread-safe: each
command takes a connection from the server's pool."""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class _ClientsReused(RedisCacheClient):
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
