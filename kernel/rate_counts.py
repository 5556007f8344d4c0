"""Requests counted in the shared cache (Redis: across the web processes), in one round trip each.

A fixed window (``window_count``: the players' bet requests per second), a sliding one
(``sliding_window_admit``: the partner API's throttle, with DRF's ``SimpleRateThrottle`` semantics) and a
window one process takes at a time, the latest made going out (``window_turn``: a table's live totals). On
Redis each is one call (a transaction pipeline, a Lua script); the embedded default's local memory does the
same in two, in its one process.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache.backends.redis import RedisCache
from redis.commands.core import Script

# One cache client for the process: ``django.core.cache.cache`` is one per thread, and under ASGI each request
# has a thread of its own, so each would open a new Redis connection.
counts_cache = caches.create_connection(DEFAULT_CACHE_ALIAS)

# The timestamps in the window as a sorted set: those that left it dropped, then this one added if the window
# has room. Scores are returned as strings (a Lua number would be truncated to an integer). Sent by its SHA1.
_SLIDING_WINDOW = Script(
    None,
    b"""
local key, now, duration, limit = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - duration)
local count, allowed = redis.call('ZCARD', key), 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('EXPIRE', key, math.ceil(duration))
  count, allowed = count + 1, 1
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {count, oldest[2] or ARGV[1], allowed}
""",
)


@dataclass(frozen=True)
class SlidingCount:
    """A request's place in its sliding window: ``allowed`` (and then counted), the requests in the window
    (this one included if allowed) and the oldest one's time."""

    allowed: bool
    count: int
    oldest: float


def window_count(*, key: str, timeout: int) -> int:
    """The count of ``key`` with this one: the first creates it, to live ``timeout`` seconds. ``ValueError`` if it
    expired between the local memory's two calls (a new window)."""
    if isinstance(counts_cache, RedisCache):
        full_key = counts_cache.make_and_validate_key(key)
        with counts_cache._cache.get_client(full_key, write=True).pipeline(transaction=True) as pipe:
            pipe.set(full_key, 0, ex=timeout, nx=True)
            pipe.incr(full_key)
            return pipe.execute()[1]
    counts_cache.add(key, 0, timeout=timeout)
    return counts_cache.incr(key)


def sliding_window_admit(*, key: str, limit: int, duration: int, now: float) -> SlidingCount:
    """Whether one more request fits the ``limit`` of those in the last ``duration`` seconds at ``now``
    (counted if it does): DRF's ``SimpleRateThrottle``, its history kept as a sorted set on Redis."""
    if isinstance(counts_cache, RedisCache):
        full_key = counts_cache.make_and_validate_key(key)
        client = counts_cache._cache.get_client(full_key, write=True)
        arguments = (repr(now), duration, limit, _member(now))
        count, oldest, allowed = _SLIDING_WINDOW(keys=(full_key,), args=arguments, client=client)
        return SlidingCount(allowed=bool(allowed), count=int(count), oldest=float(oldest))
    history = [moment for moment in counts_cache.get(key, []) if moment > now - duration]
    allowed = len(history) < limit
    if allowed:
        history.insert(0, now)
        counts_cache.set(key, history, duration)
    return SlidingCount(allowed=allowed, count=len(history), oldest=history[-1] if history else now)


def window_turn(*, key: str, seconds: float, stamp: int) -> float | None:
    """Whether what this caller made at ``stamp`` (any increasing number) goes out now, across the web processes:
    0, and the window of ``key`` is taken for ``seconds``; or the seconds until another's window ends (ask again
    then); or None, something made later has gone out already (this is stale: drop it). Local memory serves one
    process, whose caller keeps only its latest: always 0."""
    if not isinstance(counts_cache, RedisCache):
        return 0.0
    window = counts_cache.make_and_validate_key(key)
    client = counts_cache._cache.get_client(window, write=True)
    arguments = (max(1, round(seconds * 1000)), stamp, _NEWEST_KEPT_MS)
    left = _WINDOW_TURN(keys=(window, f"{window}:newest"), args=arguments, client=client)
    return None if left < 0 else left / 1000


# The window's time left, if another's (a key without one is taken anew); else -1 if a stamp as late went out
# already; else the window taken and the stamp kept as the newest (integers: a Lua number holds them exactly).
_WINDOW_TURN = Script(
    None,
    b"""
local left = redis.call('PTTL', KEYS[1])
if left > 0 then return left end
local newest = redis.call('GET', KEYS[2])
if newest and tonumber(newest) >= tonumber(ARGV[2]) then return -1 end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 0
""",
)
_NEWEST_KEPT_MS = 3_600_000


def _member(now: float) -> str:
    return f"{now!r}:{uuid.uuid4().hex[:12]}"  # two requests in the same instant are two members
