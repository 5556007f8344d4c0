"""Sessions read from the cache, written through to the database (``SESSION_ENGINE``): a signed-in request
reads no session row.

Django's ``cached_db``, with one difference: the cached copy carries the session's expiry date, checked on every
read as the database's row is (``expire_date > now``), so a session ends at the same instant whichever copy is
read (a staff session's idle minutes included), not when the cache gets round to dropping it.
"""

from __future__ import annotations

import logging
from datetime import datetime

from asgiref.sync import sync_to_async
from django.contrib.sessions.backends import cached_db
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore
from django.utils import timezone

logger = logging.getLogger(__name__)


class SessionStore(cached_db.SessionStore):
    cache_key_prefix = "punto.sessions."  # its values are (expiry date, data), not cached_db's data

    def load(self) -> dict:
        try:
            cached = self._cache.get(self.cache_key)
        except Exception:  # as cached_db: a key the cache refuses reads the database
            cached = None
        if cached is not None and cached[0] > timezone.now():
            return cached[1]
        stored = self._get_session_from_db()  # None (and the key forgotten) once expired or deleted
        if stored is None:
            return {}
        data = self.decode(stored.session_data)
        self._cached(stored.expire_date, data)
        return data

    def save(self, must_create: bool = False) -> None:
        DatabaseStore.save(self, must_create)
        self._cached(self.get_expiry_date(), self._session)

    async def aload(self) -> dict:
        return await sync_to_async(self.load)()

    async def asave(self, must_create: bool = False) -> None:
        await sync_to_async(self.save)(must_create)

    def _cached(self, expires: datetime, data: dict) -> None:
        try:
            self._cache.set(self.cache_key, (expires, data), self.get_expiry_age(expiry=expires))
        except Exception:  # the database has it: the next read falls back on it
            logger.exception("a session could not be cached")
