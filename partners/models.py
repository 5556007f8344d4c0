"""Partners: operators and aggregators on the partner API, their keys, players, idempotent requests
and webhooks. The models moved here from the wagering app and keep their tables (``db_table``)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q

from tables.models import Coup, ResultCorrection
from wagering.models import LedgerTransaction


class Partner(models.Model):
    """An operator or aggregator that puts our tables on its site through the partner API."""

    code = models.SlugField(max_length=40, unique=True, help_text="also the partner_code of its float account")
    name = models.CharField(max_length=80)
    is_active = models.BooleanField(default=True, help_text="off: its API keys are refused (403)")
    rate_limit = models.CharField(
        max_length=20,
        blank=True,
        validators=[
            RegexValidator(
                r"^[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)$",
                "a rate is requests per period, e.g. '1200/min' or '20/s'",
            )
        ],
        help_text="API requests allowed, e.g. '1200/min'; empty: the default rate",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "wagering_partner"  # the table it had in the wagering app
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.code} ({self.name})"


class PartnerApiKey(models.Model):
    """A partner's API key: the prefix finds it, the SHA-256 of the secret checks it (the key is shown once)."""

    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="api_keys")
    name = models.CharField(max_length=80, blank=True, help_text="what the partner uses it for")
    prefix = models.CharField(max_length=16, unique=True)
    secret_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "wagering_partnerapikey"  # the table it had in the wagering app
        ordering = ["-id"]
        verbose_name = "partner API key"

    def __str__(self) -> str:
        return f"{self.partner.code} key {self.prefix}"


class PartnerPlayer(models.Model):
    """A partner's player, known to the partner by its external id, to us by a user with a wallet."""

    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="players")
    external_id = models.CharField(max_length=100)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="partner_player")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "wagering_partnerplayer"  # the table it had in the wagering app
        constraints = [
            models.UniqueConstraint(fields=["partner", "external_id"], name="one_player_per_partner_external_id")
        ]
        ordering = ["partner", "external_id"]

    def __str__(self) -> str:
        return f"{self.external_id} at {self.partner.code}"


class PartnerIdempotencyKey(models.Model):
    """A partner request already carried out under its ``Idempotency-Key``: what it asked and the money it moved."""

    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="idempotency_keys")
    key = models.CharField(max_length=255)
    request = models.JSONField(help_text="the operation and its parameters, as strings")
    transaction = models.OneToOneField(
        LedgerTransaction, null=True, on_delete=models.PROTECT, related_name="partner_idempotency_key"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "wagering_partneridempotencykey"  # the table it had in the wagering app
        constraints = [models.UniqueConstraint(fields=["partner", "key"], name="one_request_per_partner_key")]
        ordering = ["-id"]
        verbose_name = "partner idempotency key"

    def __str__(self) -> str:
        return f"{self.partner.code} {self.key}"


class WebhookEndpoint(models.Model):
    """Where a partner receives its events, signed with the endpoint's secret."""

    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="webhook_endpoints")
    url = models.URLField(max_length=500)
    # The HMAC-SHA256 signing key, shown once to the partner; encrypted (casino.encryption), and
    # decrypted only to sign a delivery.
    secret_encrypted = models.TextField()
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    disabled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "wagering_webhookendpoint"  # the table it had in the wagering app
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.partner.code} {self.url}"


class WebhookDelivery(models.Model):
    """One event to one endpoint: its signed payload and how the attempts to deliver it went."""

    class EventType(models.TextChoices):
        ROUND_SETTLED = "round.settled"
        ROUND_VOIDED = "round.voided"
        ROUND_CORRECTED = "round.corrected"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending (retrying)"
        DELIVERED = "delivered"
        FAILED = "failed", "Failed (out of attempts)"

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.PROTECT, related_name="deliveries")
    event_id = models.UUIDField(unique=True)
    event_type = models.CharField(max_length=20, choices=EventType.choices)
    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="webhook_deliveries")
    correction = models.ForeignKey(
        ResultCorrection, null=True, blank=True, on_delete=models.PROTECT, related_name="webhook_deliveries"
    )
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "wagering_webhookdelivery"  # the table it had in the wagering app
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "coup", "event_type"],
                condition=Q(correction__isnull=True),
                name="one_event_per_endpoint_coup",
            ),
            # A coup corrected twice notifies twice: once per correction.
            models.UniqueConstraint(
                fields=["endpoint", "correction"],
                condition=Q(correction__isnull=False),
                name="one_event_per_endpoint_correction",
            ),
        ]
        indexes = [models.Index(fields=["status", "-id"])]
        ordering = ["-id"]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"{self.event_type} {self.coup_id} to {self.endpoint_id} ({self.status})"
