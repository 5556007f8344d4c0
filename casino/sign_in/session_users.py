"""A signed-in player's user row kept in the cache beside their session (``PERMISSION_BACKEND``), not read
from the database on every request: the row's query costs a bet request more CPU than the rest of its reads.

Staff are never kept (their rules are unchanged: their row is read on every request). Every save or delete of
a user forgets the kept row (``user_changed``), so a password change, a deactivation or an account made staff
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


def _key(user_id: object) -> str:
    return f"punto.session_users.{user_id}"


class SessionUserBackend(ModelBackend):
    """``ModelBackend`` (groups and permissions as before) whose ``get_user`` reads a player from the cache."""

    def get_user(self, user_id: object) -> AbstractBaseUser | None:
        model = get_user_model()
        fields = [field.attname for field in model._meta.concrete_fields]
        try:
            kept = cache.get(_key(user_id))
        except Exception:  # the cache unreachable: the database answers, as before
            logger.exception("a kept user could not be read")
            kept = None
        if kept is not None:
            return model.from_db(DEFAULT_DB_ALIAS, fields, kept)
        user = super().get_user(user_id)
        if user is not None and not (user.is_staff or user.is_superuser):
            try:
                cache.set(_key(user_id), [getattr(user, name) for name in fields], settings.SESSION_USER_CACHE_SECONDS)
            except Exception:
                logger.exception("a user could not be kept")
        return user


def user_changed(sender: type, instance: AbstractBaseUser, **kwargs: object) -> None:
    """Forget the kept row of a user saved or deleted: the next request reads it again. Again once the change
    commits: a request that read the row before the commit may have kept it meanwhile. A cache that cannot be
    told fails the save: a password change or deactivation must not be outlived by a kept row."""
    key = _key(instance.pk)
    cache.delete(key)
    transaction.on_commit(lambda: cache.delete(key), robust=True)
