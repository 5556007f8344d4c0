"""Money: accounts, a double-entry ledger, bets and their settlement, and the drop/win reports.

Every movement of money is one ``LedgerTransaction`` whose ``LedgerEntry`` legs sum to
zero (a deferred constraint trigger refuses anything else on PostgreSQL). An entry's
``amount`` is signed: positive credits the account. Player wallets can never go below
zero (a check constraint on the stored balance); system accounts may.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q

from casino.currencies import currency_validator
from casino.money import MONEY
from tables.models import BET_TYPE_CHOICES, Coup, ResultCorrection, SeatSession, Shoe, Table

ZERO = Decimal("0.00")
CENT = Decimal("0.01")


def house_currency() -> str:
    """The currency of an account or a movement nobody named one for: the house's (``HOUSE_CURRENCY``)."""
    return settings.HOUSE_CURRENCY


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
        CAGE = "cage", "Cage (fills and credits)"

    TABLE_KINDS = (Kind.BETS_IN_PLAY, Kind.CHIP_TRAY, Kind.PATRON_CHIPS)

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
                | Q(table__isnull=False, kind__in=["chip_tray", "patron_chips"]),
                name="a_table_for_table_accounts_only",
            ),
            models.UniqueConstraint(
                fields=["kind", "currency"],
                condition=Q(kind__in=["house", "player_debt", "cage"]),
                name="one_house_per_currency",
            ),
            models.UniqueConstraint(
                fields=["kind", "table", "currency"],
                condition=Q(kind__in=["chip_tray", "patron_chips"]),
                name="one_chip_account_per_table",
            ),
            # Bets in play per table, so placements at different tables never wait for one account's row lock.
            models.UniqueConstraint(
                fields=["table", "currency"], condition=Q(kind="bets_in_play"), name="one_bets_in_play_per_table"
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
        if self.kind == self.Kind.BETS_IN_PLAY and self.table_id is not None:
            return f"Bets in play at table {self.table_id} ({self.currency})"
        return f"{self.get_kind_display()} ({self.currency})"

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


class BetRequest(models.Model):
    """A player's bet request (place, undo, remove, rebet) by its ``key``, the ``request_id`` the player's
    client chose: carried out once, and answered the same again (a reconnect resends it). ``answer`` is what
    was answered, accepted or refused."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False)
    key = models.CharField(max_length=64)
    kind = models.CharField(max_length=8)
    request = models.JSONField(help_text="the parameters, as strings")
    answer = models.JSONField(null=True, help_text="accepted: the answer's data; refused: its error; null: under way")
    accepted = models.BooleanField(default=False, db_default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_bet_request_per_key")]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.key}"


# A bet is an online player's or a seated patron's, never both.
BETTOR_ONE_OF_TWO = Q(user__isnull=False, seat_session__isnull=True) | Q(user__isnull=True, seat_session__isnull=False)


class BetBatch(models.Model):
    """The bets a player confirmed at once (the UI's Confirm, or a rebet): accepted all together."""

    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="bet_batches")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="bet_batches"
    )
    seat_session = models.ForeignKey(
        SeatSession, null=True, blank=True, on_delete=models.PROTECT, related_name="bet_batches", db_index=False
    )
    placement = models.OneToOneField(LedgerTransaction, on_delete=models.PROTECT, related_name="placed_batch")
    cancellation = models.ForeignKey(
        LedgerTransaction, null=True, blank=True, on_delete=models.PROTECT, related_name="cancelled_batches"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=BETTOR_ONE_OF_TWO, name="batch_of_a_player_or_a_seat"),
        ]
        indexes = [models.Index(fields=["coup", "user"]), models.Index(fields=["seat_session", "coup"])]
        ordering = ["-id"]
        verbose_name_plural = "bet batches"

    def __str__(self) -> str:
        return f"batch {self.pk} on {self.coup_id}"


class Bet(models.Model):
    class State(models.TextChoices):
        ACCEPTED = "accepted"
        CANCELLED = "cancelled"
        SETTLED = "settled"
        REFUNDED = "refunded"

    # No index of their own: the composite indexes below lead with each, and settlement rewrites
    # every index of every bet (its state), so each index more is one more write per bet.
    batch = models.ForeignKey(BetBatch, on_delete=models.PROTECT, related_name="bets", db_index=False)
    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="bets", db_index=False)
    # An online player's bet, or a seated patron's chips on the layout (``wagering.seated``).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="bets", db_index=False
    )
    seat_session = models.ForeignKey(
        SeatSession, null=True, blank=True, on_delete=models.PROTECT, related_name="bets", db_index=False
    )
    bet_type = models.CharField(max_length=24, choices=BET_TYPE_CHOICES)
    stake = models.DecimalField(**MONEY)
    # Where the stake came from, and where what it returns goes: the player's wallet, or for a partner's
    # seamless wallet the partner's float (the partner holds the player's money and is credited back).
    stake_account = models.ForeignKey(
        Account, on_delete=models.PROTECT, related_name="+", db_index=False, help_text="wallet or partner float"
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.ACCEPTED)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(stake__gt=0), name="stake_positive"),
            models.CheckConstraint(condition=BETTOR_ONE_OF_TWO, name="bet_of_a_player_or_a_seat"),
            models.UniqueConstraint(fields=["batch", "bet_type"], name="one_bet_per_type_per_batch"),
        ]
        # (user, coup): a player's bets by round, newest first, and their stakes on one coup.
        # bet_open_by_user: a player's bets not yet settled, which every placement and deposit sums (their
        # largest returns must fit the wallet) without reading the player's whole history. Partial: a
        # settled bet leaves it, so settlement writes no entry to it.
        indexes = [
            models.Index(fields=["coup", "state", "bet_type"]),
            models.Index(fields=["user", "coup"]),
            models.Index(fields=["user"], condition=Q(state="accepted"), name="bet_open_by_user"),
        ]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.bet_type} {self.stake} ({self.state})"


class CoupStakeTotal(models.Model):
    """The stakes standing on a coup for one bet type in one currency: placed and not cancelled (while
    betting is open, the accepted stakes). Kept by the services that place and cancel bets, under the
    coup's lock, so the table-wide limits read a few rows instead of summing every bet already on the coup."""

    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="stake_totals", db_index=False)
    bet_type = models.CharField(max_length=24, choices=BET_TYPE_CHOICES)
    currency = models.CharField(max_length=3, default=house_currency)
    total = models.DecimalField(**MONEY)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["coup", "bet_type", "currency"], name="one_stake_total_per_coup_bet_type_and_currency"
            ),
            models.CheckConstraint(condition=Q(total__gte=0), name="stake_total_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.bet_type} {self.total} {self.currency} on {self.coup_id}"


class BetSettlement(models.Model):
    """How a bet ended and what went back to the player: at most one per bet (never paid twice)."""

    class Outcome(models.TextChoices):
        WIN = "win"
        PUSH = "push"
        LOSE = "lose"
        REFUND = "refund"

    bet = models.OneToOneField(Bet, on_delete=models.PROTECT, related_name="settlement")
    outcome = models.CharField(max_length=6, choices=Outcome.choices)
    returned = models.DecimalField(**MONEY, help_text="stake plus winnings, the stake on a push or refund, else 0")
    transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="bet_settlements")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(returned__gte=0), name="returned_not_negative")]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.outcome} {self.returned}"


class BetAdjustment(models.Model):
    """A settled bet re-settled by an approved result correction: what it returned before and now.

    The bet's ``BetSettlement`` stays as it was; what the bet returns is that of its latest adjustment."""

    correction = models.ForeignKey(ResultCorrection, on_delete=models.PROTECT, related_name="bet_adjustments")
    bet = models.ForeignKey(Bet, on_delete=models.PROTECT, related_name="adjustments")
    outcome_before = models.CharField(max_length=6, choices=BetSettlement.Outcome.choices)
    returned_before = models.DecimalField(**MONEY)
    outcome_after = models.CharField(max_length=6, choices=BetSettlement.Outcome.choices)
    returned_after = models.DecimalField(**MONEY)
    transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="bet_adjustments")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["correction", "bet"], name="one_adjustment_per_bet_and_correction"),
            models.CheckConstraint(
                condition=Q(returned_before__gte=0) & Q(returned_after__gte=0), name="adjusted_returns_not_negative"
            ),
        ]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"bet {self.bet_id}: {self.returned_before} -> {self.returned_after}"


class PlayerAdjustment(models.Model):
    """A player's share of a re-settlement: the net ``adjustment`` of their bets, and how it was paid.

    The wallet leg is ``adjustment + owed_change``: a debit the wallet cannot cover is owed (``owed_change``
    positive, the rest of the wallet taken); a credit first pays back what the player owes (negative)."""

    correction = models.ForeignKey(ResultCorrection, on_delete=models.PROTECT, related_name="player_adjustments")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="result_adjustments")
    adjustment = models.DecimalField(**MONEY)
    owed_change = models.DecimalField(**MONEY)
    balance_after = models.DecimalField(**MONEY)
    transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="player_adjustments")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["correction", "user"], name="one_adjustment_per_player_and_correction")
        ]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.user} {self.adjustment:+} (owed {self.owed_change:+})"


class GameReport(models.Model):
    """Drop/win of a set of coups in one currency: results, the stakes in that currency, what went back
    to players, the house's win. A set of coups with bets in several currencies has a report for each."""

    currency = models.CharField(max_length=3, default=house_currency)
    coups = models.PositiveIntegerField(default=0, help_text="coups played (resolved or settled)")
    void_coups = models.PositiveIntegerField(default=0)
    banker_wins = models.PositiveIntegerField(default=0)
    player_wins = models.PositiveIntegerField(default=0)
    ties = models.PositiveIntegerField(default=0)
    bets = models.PositiveIntegerField(default=0, help_text="bets settled")
    players = models.PositiveIntegerField(default=0)
    staked = models.DecimalField(**MONEY, default=ZERO)
    returned = models.DecimalField(**MONEY, default=ZERO, help_text="paid back to players: stakes and winnings")
    house_win = models.DecimalField(**MONEY, default=ZERO)
    hold_percent = models.DecimalField(max_digits=9, decimal_places=2, null=True, blank=True)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class TableDayReport(GameReport):
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="day_reports")
    day = models.DateField(help_text="the UTC day the coups opened")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "day", "currency"], name="one_report_per_table_day_currency")
        ]
        ordering = ["-day", "table", "currency"]

    def __str__(self) -> str:
        return f"{self.table.code} {self.day} {self.currency}"


class ShoeReport(GameReport):
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="reports")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["shoe", "currency"], name="one_report_per_shoe_currency")]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.shoe} {self.currency}"


# --- Partners: operators and aggregators on the partner API -------------------------------------
