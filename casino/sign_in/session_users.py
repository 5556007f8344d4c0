"""A signed-in player's user row kept in the cache beside their session (``PERMISSION_BACKEND``), not read
from the database on every request: the row's query costs a bet request more CPU than the rest of its reads.

Staff are never kept (their rules are unchanged: their row is read on every request). Every save or delete of
a user voids the kept row (``user_changed``), so a password change, a deactivation or an account made staff
takes effect at the next request, as when the row was read each time; signing out ends the session itself. A
change made behind the ORM's back (a queryset's ``update()``, SQL) takes effect when the kept row expires,
within ``SESSION_USER_CACHE_SECONDS``.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, transaction

logger = logging.getLogger(__name__)


def _version_key(user_id: object) -> str:
    return f"punto.session_users.{user_id}.version"


def _row_key(user_id: object) -> str:
    return f"punto.session_users.{user_id}"


class SessionUserBackend(ModelBackend):
    """``ModelBackend`` (groups and permissions as before) whose ``get_user`` reads a player from the cache.

    The row is kept with the user's version as it was before the database was read, and served only while that is
    still the version: a change (``user_changed``) moves it on, so a row read just before a change committed is
    never served. The row is kept by field name: a release that changes the user model's fields reads it again
    rather than shifting values into other fields. One cache round trip a request."""

    def get_user(self, user_id: object) -> AbstractBaseUser | None:
        model = get_user_model()
        fields = [field.attname for field in model._meta.concrete_fields]
        try:
            found = cache.get_many([_version_key(user_id), _row_key(user_id)])
        except Exception:  # the cache unreachable: the database answers, as before
            logger.exception("a kept user could not be read")
            return super().get_user(user_id)
        version, kept = found.get(_version_key(user_id), 0), found.get(_row_key(user_id))
        if isinstance(kept, dict) and kept.get("version") == version and list(kept.get("fields", {})) == fields:
            user = model.from_db(DEFAULT_DB_ALIAS, fields, list(kept["fields"].values()))
            return user if self.user_can_authenticate(user) else None
        user = super().get_user(user_id)
        if user is not None and not (user.is_staff or user.is_superuser):
            row = {"version": version, "fields": {name: getattr(user, name) for name in fields}}
            try:
                cache.set(_row_key(user_id), row, settings.SESSION_USER_CACHE_SECONDS)
            except Exception:
                logger.exception("a user could not be kept")
        return user


def user_changed(sender: type, instance: AbstractBaseUser, **kwargs: object) -> None:
    """Move the user's version on when they are saved or deleted: a row kept before is never served again, nor one
    read from the database before the change committed (moved on once more at the commit). A cache that cannot be
    told fails the save: a password change or deactivation must not be outlived by a kept row."""
    key = _version_key(instance.pk)
    _version_moved_on(key)
    transaction.on_commit(lambda: _version_moved_on(key), robust=True)


def _version_moved_on(key: str) -> None:
    cache.add(key, 0, timeout=None)
    cache.incr(key)
