"""Partners: operators and aggregators on the partner API, their keys, players, idempotent requests
and webhooks. The models moved here from the wagering app and keep their tables (``db_table``)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q

from kernel.currencies import currency_validator
from kernel.money import MONEY
from partners.identifiers import frame_origins_validator
from tables.models import Coup, ResultCorrection, Shoe
from wagering.models import BetBatch, LedgerRoot, LedgerTransaction
from wagering.protection.services import MAX_SESSION_MINUTES


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
    currency = models.CharField(
        max_length=3,
        default="EUR",
        validators=[currency_validator],
        help_text="ISO 4217, two decimal places: every amount of its players is in it",
    )
    wallet_mode = models.CharField(
        max_length=10,
        choices=[
            ("transfer", "Transfer (money moved into our wallets)"),
            ("seamless", "Seamless (the partner's wallet)"),
        ],
        default="transfer",
    )
    wallet_url = models.URLField(max_length=500, blank=True, help_text="seamless: the base URL of its wallet API")
    # The HMAC-SHA256 key signing our wallet calls (kernel.encryption), decrypted only to sign one.
    wallet_secret_encrypted = models.TextField(blank=True)
    frame_origins = models.TextField(
        blank=True,
        validators=[frame_origins_validator],
        help_text="origins allowed to frame its launched players' pages, one per line (e.g. https://casino.example)",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "wagering_partner"  # the table it had in the wagering app
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.code} ({self.name})"

    @property
    def is_seamless(self) -> bool:
        return self.wallet_mode == "seamless"


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


def all_event_types() -> list[str]:
    return list(WebhookDelivery.EventType.values)


class WebhookEndpoint(models.Model):
    """Where a partner receives its events (those it subscribed to), signed with the endpoint's secret."""

    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="webhook_endpoints")
    url = models.URLField(max_length=500)
    # The HMAC-SHA256 signing key, shown once to the partner; encrypted (kernel.encryption), and
    # decrypted only to sign a delivery.
    secret_encrypted = models.TextField()
    is_active = models.BooleanField(default=True)
    events = models.JSONField(default=all_event_types, help_text="the event types it receives")
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
        SHOE_FINISHED = "shoe.finished"
        LEDGER_HOURLY_ROOT = "ledger.hourly_root"
        PLAYER_SESSION_LIMIT_REACHED = "player.session_limit_reached"
        PLAYER_REALITY_CHECK = "player.reality_check"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending (retrying)"
        DELIVERED = "delivered"
        FAILED = "failed", "Failed (out of attempts)"

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.PROTECT, related_name="deliveries")
    event_id = models.UUIDField(unique=True)
    event_type = models.CharField(max_length=40, choices=EventType.choices)
    coup = models.ForeignKey(Coup, null=True, blank=True, on_delete=models.PROTECT, related_name="webhook_deliveries")
    shoe = models.ForeignKey(Shoe, null=True, blank=True, on_delete=models.PROTECT, related_name="webhook_deliveries")
    correction = models.ForeignKey(
        ResultCorrection, null=True, blank=True, on_delete=models.PROTECT, related_name="webhook_deliveries"
    )
    ledger_root = models.ForeignKey(
        LedgerRoot, null=True, blank=True, on_delete=models.PROTECT, related_name="webhook_deliveries"
    )
    player = models.ForeignKey(
        "PartnerPlayer", null=True, blank=True, on_delete=models.PROTECT, related_name="webhook_deliveries"
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
            models.UniqueConstraint(
                fields=["endpoint", "shoe"], condition=Q(shoe__isnull=False), name="one_event_per_endpoint_shoe"
            ),
            models.UniqueConstraint(
                fields=["endpoint", "ledger_root"],
                condition=Q(ledger_root__isnull=False),
                name="one_event_per_endpoint_ledger_root",
            ),
            models.CheckConstraint(
                condition=Q(coup__isnull=False)
                | Q(shoe__isnull=False)
                | Q(ledger_root__isnull=False)
                | Q(player__isnull=False),
                name="a_delivery_is_of_a_coup_a_shoe_an_hour_or_a_player",
            ),
        ]
        indexes = [models.Index(fields=["status", "-id"])]
        ordering = ["-id"]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        subject = self.coup_id or self.shoe_id or self.ledger_root_id or self.player_id
        return f"{self.event_type} {subject} to {self.endpoint_id} ({self.status})"


class LaunchToken(models.Model):
    """A game launch: the single-use token of a launch URL (its SHA-256 only) and where it leads."""

    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="launch_tokens")
    player = models.ForeignKey(PartnerPlayer, on_delete=models.PROTECT, related_name="launch_tokens")
    token_hash = models.CharField(max_length=64, unique=True)
    table_code = models.SlugField(max_length=20, blank=True)
    language = models.CharField(max_length=10, blank=True)
    return_url = models.URLField(max_length=500, blank=True)
    # The play session it opens (wagering.protection.services.play_session_start), as the partner asked:
    # minutes 1 to MAX_SESSION_MINUTES each.
    reality_check_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    session_limit_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    loss_limit = models.DecimalField(**MONEY, null=True, blank=True, help_text="in the partner's currency")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    Q(reality_check_minutes__isnull=True)
                    | Q(reality_check_minutes__gte=1, reality_check_minutes__lte=MAX_SESSION_MINUTES),
                    Q(session_limit_minutes__isnull=True)
                    | Q(session_limit_minutes__gte=1, session_limit_minutes__lte=MAX_SESSION_MINUTES),
                    Q(loss_limit__isnull=True) | Q(loss_limit__gt=0),
                ),
                name="launch_protection_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"launch of {self.player}"


class WalletTransaction(models.Model):
    """One call of a partner's seamless wallet (a debit, a credit or a rollback), with its state: the
    partner de-duplicates by ``transaction_id``, so retries of one transaction move money once."""

    class Kind(models.TextChoices):
        DEBIT = "debit"
        CREDIT = "credit"
        ROLLBACK = "rollback"

    class State(models.TextChoices):
        PENDING = "pending", "Pending (not yet acknowledged)"
        ACKNOWLEDGED = "acknowledged"
        REFUSED = "refused", "Refused by the partner"
        FAILED = "failed", "Failed (rolled back)"

    transaction_id = models.UUIDField(unique=True)
    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="wallet_transactions")
    player = models.ForeignKey(PartnerPlayer, on_delete=models.PROTECT, related_name="wallet_transactions")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    amount = models.DecimalField(**MONEY)
    currency = models.CharField(max_length=3)
    coup = models.ForeignKey(Coup, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    batch = models.OneToOneField(BetBatch, null=True, blank=True, on_delete=models.PROTECT, related_name="wallet_debit")
    correction = models.ForeignKey(ResultCorrection, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    rolls_back = models.OneToOneField("self", null=True, blank=True, on_delete=models.PROTECT, related_name="rollback")
    body = models.JSONField(help_text="the request as sent (its signature aside)")
    state = models.CharField(max_length=12, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    error_code = models.CharField(max_length=40, blank=True, help_text="the partner's refusal, e.g. insufficient_funds")
    partner_balance = models.DecimalField(**MONEY, null=True, blank=True, help_text="as the partner answered")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gte=0), name="wallet_amount_not_negative"),
            # One credit per player and round (a correction's adjustments aside).
            models.UniqueConstraint(
                fields=["player", "coup"],
                condition=Q(kind="credit", correction__isnull=True),
                name="one_round_credit_per_player",
            ),
        ]
        indexes = [
            models.Index(fields=["state", "next_attempt_at"]),
            models.Index(fields=["partner", "created_at"]),
        ]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.amount} {self.currency} ({self.state})"


class WalletCallAttempt(models.Model):
    """One HTTP attempt of a wallet transaction: when, how long, and what the partner answered."""

    transaction = models.ForeignKey(WalletTransaction, on_delete=models.PROTECT, related_name="call_attempts")
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=12, help_text="acknowledged, refused or failed")
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"attempt on {self.transaction_id}: {self.outcome}"


class ReconciliationReport(models.Model):
    """A partner's seamless-wallet day (UTC): ``partners.reconciliation.reconciliation_summary``, kept."""

    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="reconciliation_reports")
    day = models.DateField()
    summary = models.JSONField()
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["partner", "day"], name="one_reconciliation_per_partner_day")]
        ordering = ["-day", "partner"]

    def __str__(self) -> str:
        return f"{self.partner.code} {self.day}"
