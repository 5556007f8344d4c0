"""Explicit audit rows, written by the services that make the change."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import models

from kernel.raw_rows import row_insert
from tables.models import AuditLog, Table

SYSTEM_TABLE_LOOP = "table-loop"


def audit_record(
    *,
    action: str,
    actor: AbstractBaseUser | None = None,
    actor_label: str = SYSTEM_TABLE_LOOP,
    table: Table | None = None,
    obj: models.Model | None = None,
    before: dict | None = None,
    after: dict | None = None,
    reason: str = "",
) -> AuditLog:
    return row_insert(  # a raw statement: every settlement (a private coup's at each deal) writes one
        AuditLog(
            actor=actor if actor is not None and actor.is_authenticated else None,
            actor_label=actor.get_username() if actor is not None and actor.is_authenticated else actor_label,
            action=action,
            table=table,
            object_type=type(obj).__name__ if obj is not None else "",
            object_id=str(obj.pk) if obj is not None else "",
            before=before,
            after=after,
            reason=reason,
        )
    )
