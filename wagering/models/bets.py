"""Bets: players' requests, batches, bets, the coup's running stake totals, settlements and re-settlements."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from kernel.money import MONEY
from tables.models import BET_TYPE_CHOICES, Coup, ResultCorrection, SeatSession
from wagering.models.accounts import Account, LedgerTransaction, house_currency


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
            # a loss-limited player's bets since a period's start (wagering.protection.standing.players_losses)
            models.Index(fields=["user", "created_at"], name="bet_by_user_since"),
            models.Index(fields=["user"], condition=Q(state="accepted"), name="bet_open_by_user"),
        ]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.bet_type} {self.stake} ({self.state})"


class CoupStakeTotal(models.Model):
    """The stakes standing on a coup for one bet type in one currency: placed and not cancelled (while
    betting is open, the accepted stakes), and how many bettors (players and seat sessions) they are. Kept
    by the services that place and cancel bets, under the coup's lock, so the table-wide limits and the
    live totals read a few rows instead of summing or counting every bet already on the coup."""

    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="stake_totals", db_index=False)
    bet_type = models.CharField(max_length=24, choices=BET_TYPE_CHOICES)
    currency = models.CharField(max_length=3, default=house_currency)
    total = models.DecimalField(**MONEY)
    bettors = models.IntegerField(default=0, db_default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["coup", "bet_type", "currency"], name="one_stake_total_per_coup_bet_type_and_currency"
            ),
            models.CheckConstraint(condition=Q(total__gte=0), name="stake_total_not_negative"),
            models.CheckConstraint(condition=Q(bettors__gte=0), name="stake_total_bettors_not_negative"),
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
