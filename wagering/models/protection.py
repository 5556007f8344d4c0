"""A player's protection (``wagering.protection``): the limits they set on themselves, their time-out or
exclusion, and their current play session's reality checks and limits. One row per player who ever had any;
a player without a row plays unprotected by choice (the market's default reality check aside, see
``PLAYER_REALITY_CHECK_MINUTES``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from kernel.money import MONEY

LIMIT_FIELDS = (
    "deposit_day",
    "deposit_week",
    "deposit_month",
    "loss_day",
    "loss_week",
    "loss_month",
    "session_minutes",
)


class PlayerProtection(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.PROTECT, related_name="protection"
    )
    # The limits in force (null: none), each per calendar period in PLAYER_PROTECTION_TIME_ZONE.
    deposit_day = models.DecimalField(**MONEY, null=True, blank=True)
    deposit_week = models.DecimalField(**MONEY, null=True, blank=True)
    deposit_month = models.DecimalField(**MONEY, null=True, blank=True)
    loss_day = models.DecimalField(**MONEY, null=True, blank=True)
    loss_week = models.DecimalField(**MONEY, null=True, blank=True)
    loss_month = models.DecimalField(**MONEY, null=True, blank=True)
    session_minutes = models.PositiveIntegerField(null=True, blank=True)
    reality_check_minutes = models.PositiveSmallIntegerField(null=True, blank=True, help_text="the player's choice")
    # A looser limit waits out its cooling-off: {field: {"value": "100.00" | null, "effective_at": ISO time}}.
    pending = models.JSONField(default=dict, blank=True)
    # Breaks from play: no bet, no deposit until then; withdrawals stay open.
    timed_out_until = models.DateTimeField(null=True, blank=True)
    self_excluded_until = models.DateTimeField(null=True, blank=True)
    operator_excluded_at = models.DateTimeField(
        null=True, blank=True, help_text="the partner's own self-exclusion register: until the partner lifts it"
    )
    # The current play session (from the player's sign-in or their partner's launch).
    session_started_at = models.DateTimeField(null=True, blank=True)
    session_ends_at = models.DateTimeField(null=True, blank=True)
    session_loss_limit = models.DecimalField(**MONEY, null=True, blank=True, help_text="the partner's, at launch")
    reality_check_every = models.PositiveSmallIntegerField(null=True, blank=True, help_text="minutes, this session")
    reality_check_due_at = models.DateTimeField(null=True, blank=True)
    session_limit_told = models.BooleanField(default=False, db_default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    *(Q(**{f"{name}__isnull": True}) | Q(**{f"{name}__gt": 0}) for name in LIMIT_FIELDS),
                    Q(session_loss_limit__isnull=True) | Q(session_loss_limit__gt=0),
                ),
                name="protection_limits_positive",
            ),
        ]
        indexes = [
            models.Index(
                fields=["session_ends_at"],
                condition=Q(session_limit_told=False, session_ends_at__isnull=False),
                name="protection_session_to_tell",
            ),
        ]

    def __str__(self) -> str:
        return f"protection of user {self.user_id}"
