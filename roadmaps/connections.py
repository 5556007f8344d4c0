"""How many table sockets one signed-in user, or one anonymous address, holds at once, across processes.

Each socket holds a numbered slot in the shared cache (Redis with ``REDIS_URL``, this process's memory
on the embedded default), taken with an atomic add and kept alive while the socket lives; a process
that dies without closing its sockets frees their slots when they expire.
"""

from __future__ import annotations

import asyncio

from django.conf import settings
from django.core.cache import cache

SLOT_SECONDS = 60
KEEP_EVERY_SECONDS = SLOT_SECONDS / 3


def connection_owner(scope: dict) -> tuple[str, int]:
    """Who a socket counts against, and their limit (0: no limit)."""
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}", settings.WS_MAX_CONNECTIONS_PER_USER
    address = (scope.get("client") or ("unknown",))[0]
    return f"address:{address}", settings.WS_MAX_CONNECTIONS_PER_ADDRESS


async def connection_slot_take(*, owner: str, limit: int, channel_name: str) -> str | None:
    """A free slot of the owner's, now this socket's; None when all ``limit`` are taken."""
    for number in range(limit):
        key = f"ws-slot:{owner}:{number}"
        if await cache.aadd(key, channel_name, timeout=SLOT_SECONDS):
            return key
    return None


async def connection_slot_keep(*, key: str, channel_name: str) -> None:
    """Run while the socket lives: keep its slot from expiring (taking it again if it did)."""
    while True:
        await asyncio.sleep(KEEP_EVERY_SECONDS)
        if not await cache.atouch(key, SLOT_SECONDS):
            await cache.aadd(key, channel_name, timeout=SLOT_SECONDS)


async def connection_slot_release(*, key: str, channel_name: str) -> None:
    if await cache.aget(key) == channel_name:
        await cache.adelete(key)
