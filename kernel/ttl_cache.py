"""A process-local cache of rows read on every request of an API (a partner's key, its players), kept a few
seconds: what a change of them (a key revoked, a partner disabled) takes to be seen is those seconds.

It keeps plain values (the rows' columns), never model instances: each request builds its own, so nothing one
request does to them reaches another's.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from time import monotonic
from typing import TypeVar

Value = TypeVar("Value")


class TtlCache:
    """Entries that live ``seconds`` from their read, at most ``size`` of them (the least recently read dropped)."""

    def __init__(self, *, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, tuple[float, object]] = OrderedDict()
        self._lock = threading.Lock()

    def fresh(self, key: Hashable) -> object | None:
        """The value of ``key`` if it was read less than its ``seconds`` ago, else None (nothing is read: for a
        caller that must not read here, as an event loop reading the database in a thread)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] > monotonic():
                self._entries.move_to_end(key)
                return entry[1]
        return None

    def get(self, key: Hashable, load: Callable[[], Value | None], *, seconds: float) -> Value | None:
        """The value of ``key`` read less than ``seconds`` ago, else ``load()``'s, kept unless it is None (a
        row not found now may be created the next moment)."""
        value = self.fresh(key)
        if value is not None:
            return value
        now = monotonic()
        value = load()
        if value is not None and seconds > 0:
            with self._lock:
                self._entries[key] = (now + seconds, value)
                self._entries.move_to_end(key)
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
