"""This process's own watch over Redis: a thread that PINGs it every second and tells whoever asked when it finds
Redis lost (``LOST_AFTER`` PINGs in a row unanswered within ``REDIS_CHECK_SECONDS``).

A web process cut off from Redis hears no live event: its sockets lead nowhere. The balancer learns it from
``/healthz``, which one worker of the host answers at each check; every worker learns it here, for its own
sockets (``kernel.socket_shedding``). The PING runs in a thread, its timeout the socket's: an event loop busy
with a reconnecting crowd is never taken for a Redis that does not answer. The client is made once, for the
URL the process started with (a test that points ``settings.REDIS_URL`` elsewhere does not move it).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import redis

logger = logging.getLogger(__name__)

REDIS_CHECK_SECONDS = 1.0  # a PING's answer waited for at most this (a partition drops packets silently)
WATCH_EVERY_SECONDS = 1.0
LOST_WATCH_EVERY_SECONDS = 0.25  # while lost: found again as soon as it answers (the host back in the balancer)
LOST_AFTER = 2  # PINGs unanswered in a row: one slow answer is not an outage


class RedisWatch:
    """Redis as this process finds it: ``lost`` from the ``lost_after``-th PING unanswered in a row until one is
    answered; ``on_lost`` listeners are called (in the watch's thread) each time it becomes lost."""

    def __init__(self, *, reachable: Callable[[], bool], lost_after: int = LOST_AFTER) -> None:
        self.reachable, self.lost_after = reachable, lost_after
        self.lost = False
        self.unanswered = 0
        self.listeners: list[Callable[[], None]] = []

    def check(self) -> None:
        """One PING, and what it changes."""
        if self.reachable():
            self.unanswered, self.lost = 0, False
            return
        self.unanswered += 1
        if self.unanswered >= self.lost_after and not self.lost:
            self.lost = True
            for listener in self.listeners:
                try:
                    listener()
                except Exception:  # one listener's failure neither stops the others nor the watch
                    logger.exception("a listener of Redis lost failed")

    def run(self, *, every: float = WATCH_EVERY_SECONDS, every_while_lost: float = LOST_WATCH_EVERY_SECONDS) -> None:
        """Check every ``every`` seconds from one start to the next (a PING that waited its timeout included), every
        ``every_while_lost`` while Redis is lost, for the process's life (a check that fails unexpectedly is logged,
        and the next one made)."""
        while True:
            started = time.monotonic()
            try:
                self.check()
            except Exception:
                logger.exception("Redis's watch failed a check")
            pause = every_while_lost if self.lost else every
            time.sleep(max(0.0, pause - (time.monotonic() - started)))


_watch: RedisWatch | None = None
_watch_lock = threading.Lock()


def redis_watch_start(*, url: str, on_lost: Callable[[], None]) -> RedisWatch:
    """The process's watch over Redis at ``url`` (started with its first caller; ``on_lost`` added once)."""
    global _watch
    with _watch_lock:
        if _watch is None:
            client = redis_checking_client(url)
            _watch = RedisWatch(reachable=lambda: redis_answers(client))
            threading.Thread(target=_watch.run, name="redis-watch", daemon=True).start()
        if on_lost not in _watch.listeners:
            _watch.listeners.append(on_lost)
        return _watch


def redis_lost() -> bool:
    """True while this process's watch finds Redis lost (never without a watch: the embedded default)."""
    return _watch is not None and _watch.lost


def redis_watched() -> bool:
    """Whether this process watches Redis (a web process with REDIS_URL)."""
    return _watch is not None


def redis_checking_client(url: str) -> redis.Redis:
    """A client for PINGs: each waits at most ``REDIS_CHECK_SECONDS``, never tried again by the client."""
    return redis.Redis.from_url(
        url, socket_connect_timeout=REDIS_CHECK_SECONDS, socket_timeout=REDIS_CHECK_SECONDS, retry=None
    )


def redis_answers(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False
