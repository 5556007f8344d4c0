"""Accounts and the double-entry ledger: every movement of money is one ``LedgerTransaction`` whose
``LedgerEntry`` legs sum to zero (a statement trigger refuses anything else on PostgreSQL). An entry's
``amount`` is signed: positive credits the account. Player wallets can never go below zero (a check
constraint on the stored balance); system accounts may."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q

from kernel.currencies import currency_validator
from kernel.money import MONEY
from tables.models import Coup, Table

ZERO = Decimal("0.00")
CENT = Decimal("0.01")


def house_currency() -> str:
    """The currency of an account or a movement nobody named one for: the house's (``HOUSE_CURRENCY``)."""
    return settings.HOUSE_CURRENCY


# The house and a table's bets in play are kept in shards: a coup dealt on demand posts through the one its id
# picks (``ledger_shard``), so players dealing at one table at once never queue for one row's lock between their
# placement and their commit. Every other movement uses shard 0; an account's balance is the sum of its shards.
LEDGER_SHARDS = 16
SHARDED_KINDS = ("house", "bets_in_play")


def ledger_shard(coup: Coup | None) -> int:
    """The shard of the house and of the table's bets in play that a coup's money goes through: a private
    coup's by its id, any other movement's 0."""
    return coup.pk % LEDGER_SHARDS if coup is not None and coup.player_id is not None else 0


def money(value: Decimal | int | str | None) -> Decimal:
    """An amount to the cent; SQLite hands sums back as floats' digits, so every sum goes through here."""
    return ZERO if value is None else Decimal(value).quantize(CENT)


class Account(models.Model):
    class Kind(models.TextChoices):
        PLAYER = "player"
        HOUSE = "house"
        BETS_IN_PLAY = "bets_in_play", "Bets in play"
        PARTNER_FLOAT = "partner_float", "Partner float"
        # Minus what players owe after result corrections their wallets could not cover (see PlayerAdjustment).
        PLAYER_DEBT = "player_debt", "Owed by players (result corrections)"
        # Seated play at a dealer table (wagering.seated): the house's chips in the table's tray, and the
        # chips its patrons hold (their stakes come from it and their returns go back to it).
        CHIP_TRAY = "chip_tray", "Table chip tray"
        PATRON_CHIPS = "patron_chips", "Chips with the table's patrons"
        # The cash patrons change for chips at the table (wagering.chips), and the cage that fills the trays.
        DROP_BOX = "drop_box", "Table drop box"
        CAGE = "cage", "Cage (fills and credits)"

    TABLE_KINDS = (Kind.BETS_IN_PLAY, Kind.CHIP_TRAY, Kind.PATRON_CHIPS, Kind.DROP_BOX)

    kind = models.CharField(max_length=16, choices=Kind.choices)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="wallet"
    )
    partner_code = models.SlugField(
        max_length=40, blank=True, help_text="partner float only: the partner; empty is the operator's own float"
    )
    table = models.ForeignKey(
        Table,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="bets in play, chip tray, patrons' chips only: the table (none: the bets in play of before)",
    )
    # Every amount of the account is in its currency; system accounts are one per currency (and table).
    currency = models.CharField(max_length=3, default=house_currency, validators=[currency_validator])
    balance = models.DecimalField(**MONEY, default=ZERO)
    shard = models.PositiveSmallIntegerField(
        default=0, db_default=0, help_text="house and bets in play only (ledger_shard); 0 unless named"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(kind="player") | Q(balance__gte=0), name="player_balance_not_negative"),
            models.CheckConstraint(
                condition=Q(kind="player", user__isnull=False) | (~Q(kind="player") & Q(user__isnull=True)),
                name="a_user_for_every_wallet_only",
            ),
            models.CheckConstraint(
                condition=Q(kind="bets_in_play")
                | Q(table__isnull=True, kind__in=["player", "house", "player_debt", "partner_float", "cage"])
                | Q(table__isnull=False, kind__in=["chip_tray", "patron_chips", "drop_box"]),
                name="a_table_for_table_accounts_only",
            ),
            models.CheckConstraint(
                condition=Q(shard=0) | Q(kind__in=SHARDED_KINDS, shard__lt=LEDGER_SHARDS),
                name="shards_of_house_and_bets_in_play_only",
            ),
            models.UniqueConstraint(
                fields=["kind", "currency", "shard"],
                condition=Q(kind__in=["house", "player_debt", "cage"]),
                name="one_house_per_currency_and_shard",
            ),
            models.UniqueConstraint(
                fields=["kind", "table", "currency"],
                condition=Q(kind__in=["chip_tray", "patron_chips", "drop_box"]),
                name="one_chip_account_per_table",
            ),
            # Bets in play per table, so placements at different tables never wait for one account's row lock.
            models.UniqueConstraint(
                fields=["table", "currency", "shard"],
                condition=Q(kind="bets_in_play"),
                name="one_bets_in_play_per_table_and_shard",
            ),
            models.UniqueConstraint(
                fields=["kind", "currency"],
                condition=Q(kind="bets_in_play", table__isnull=True),
                name="one_shared_bets_in_play",
            ),
            models.UniqueConstraint(
                fields=["partner_code"], condition=Q(kind="partner_float"), name="one_float_per_partner"
            ),
        ]
        ordering = ["id"]
        permissions = [("move_money", "Can deposit to and withdraw from player wallets")]

    def __str__(self) -> str:
        if self.kind == self.Kind.PLAYER:
            return f"wallet of {self.user} ({self.currency})"
        if self.kind == self.Kind.PARTNER_FLOAT:
            return f"float of {self.partner_code or 'the operator'} ({self.currency})"
        shard = f", shard {self.shard}" if self.shard else ""
        if self.kind == self.Kind.BETS_IN_PLAY and self.table_id is not None:
            return f"Bets in play at table {self.table_id} ({self.currency}{shard})"
        return f"{self.get_kind_display()} ({self.currency}{shard})"

    @property
    def is_wallet(self) -> bool:
        return self.kind == self.Kind.PLAYER


class LedgerTransaction(models.Model):
    class Kind(models.TextChoices):
        DEPOSIT = "deposit"
        WITHDRAWAL = "withdrawal"
        BET_PLACEMENT = "bet_placement", "Bet placement"
        BET_CANCEL = "bet_cancel", "Bet cancelled (undo, remove)"
        SETTLEMENT = "settlement"
        REFUND = "refund", "Refund (void coup)"
        BUY_IN = "buy_in", "Chips bought at a table"
        FILL = "fill", "Fill (cage to a table's tray)"
        CREDIT = "credit", "Credit (a table's tray to the cage)"
        CORRECTION = "correction", "Result correction (re-settlement)"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    # One currency per transaction: every leg's account is in it (the database checks it with the sum).
    currency = models.CharField(max_length=3, default=house_currency, validators=[currency_validator])
    coup = models.ForeignKey(Coup, null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_transactions")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind}"


class LedgerEntry(models.Model):
    """One leg: ``amount`` credited to ``account`` (negative: debited), with the balance around it."""

    # No index of their own: one_leg_per_account and (account, id) lead with them (fewer indexes to write per leg).
    transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="entries", db_index=False)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries", db_index=False)
    amount = models.DecimalField(**MONEY)
    balance_before = models.DecimalField(**MONEY)
    balance_after = models.DecimalField(**MONEY)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="entry_moves_money"),
            models.UniqueConstraint(fields=["transaction", "account"], name="one_leg_per_account"),
        ]
        indexes = [models.Index(fields=["account", "id"])]
        ordering = ["transaction", "id"]
        verbose_name_plural = "ledger entries"

    def __str__(self) -> str:
        return f"{self.account}: {self.amount:+}"


class IdempotencyKey(models.Model):
    """A deposit or withdrawal request already carried out: its parameters and its result."""

    key = models.CharField(max_length=100, unique=True)
    operation = models.CharField(max_length=16)
    request = models.JSONField(help_text="the parameters, as strings")
    transaction = models.OneToOneField(
        LedgerTransaction, null=True, on_delete=models.PROTECT, related_name="idempotency_key"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return self.key
