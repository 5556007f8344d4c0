"""The audit log: append-only (a PostgreSQL trigger refuses updates and deletes)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import models

from tables.models.floor import Table


class AuditLogQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionDenied("the audit log is append-only")

    def delete(self):
        raise PermissionDenied("the audit log is append-only")


class AuditLog(models.Model):
    """Append-only record of every significant event: who, what, when, before and after."""

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT)
    # Text, not a bounded column: a username holds 150 characters, a partner player's up to 141.
    actor_label = models.TextField(help_text="the user, or the process (table loop, settlement)")
    action = models.CharField(max_length=40, db_index=True)
    table = models.ForeignKey(Table, null=True, blank=True, on_delete=models.PROTECT, related_name="audit_entries")
    object_type = models.CharField(max_length=40, blank=True)
    object_id = models.CharField(max_length=40, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    objects = AuditLogQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.actor_label} {self.action}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise PermissionDenied("the audit log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionDenied("the audit log is append-only")
