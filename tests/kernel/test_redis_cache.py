"""The shared cache on Redis: one connection pool per process, whatever the thread or asynchronous context that
reads it (each request and each socket has its own: before, each opened its own connection to Redis)."""

from __future__ import annotations

import asyncio
import contextvars

import pytest
from asgiref.sync import sync_to_async
from django.core.cache import caches

from kernel.redis_cache import RedisCache

pytestmark = pytest.mark.skipif(
    not isinstance(caches["default"], RedisCache), reason="the shared cache is on Redis only with REDIS_URL"
)


def connections_received() -> int:
    return caches["default"]._cache.get_client().info("stats")["total_connections_received"]


def session_like_read(key: str) -> object:
    """What a request or a socket's connect does first: its own context's cache object reads a key."""
    return caches["default"].get(key)


def in_a_context_of_its_own(key: str) -> asyncio.Task:
    """A read as a request's or a socket's: the server starts each in a fresh context (no cache object yet)."""
    return asyncio.create_task(sync_to_async(session_like_read)(key), context=contextvars.Context())


async def test_requests_and_sockets_in_their_own_contexts_share_the_processs_redis_connections():
    await sync_to_async(session_like_read)("warm")  # the pool's first connection
    before = await sync_to_async(connections_received)()
    for number in range(30):  # one after the other, each in a context of its own, as the server runs them
        await in_a_context_of_its_own(f"key-{number}")
    await asyncio.gather(*(in_a_context_of_its_own(f"k-{number}") for number in range(10)))
    opened = await sync_to_async(connections_received)() - before
    assert opened <= 2, f"{opened} new Redis connections for 40 contexts' reads"  # 40 before (one each)
