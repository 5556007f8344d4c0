"""Coups, the cards dealt to them, cards held for the pit, dealing errors, void requests and result corrections."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from baccarat.cards import Card
from baccarat.coup import BANKER, PLAYER, CoupResult, resolve_hands
from tables.models.floor import HAND_CHOICES, WINNER_CHOICES, Table
from tables.models.shoes import Shoe, TableWideQuerySet


class Coup(models.Model):
    class State(models.TextChoices):
        BETTING = "betting"
        NO_MORE_BETS = "no_more_bets", "No more bets"
        DEALING = "dealing"
        HELD = "held", "Held for the pit"
        RESOLVED = "resolved"
        SETTLED = "settled"
        VOID = "void"

    # A held coup stays the table's coup: betting, dealing and settlement wait for the pit's decision.
    LIVE_STATES = (State.BETTING, State.NO_MORE_BETS, State.DEALING, State.HELD)

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="coups")
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="coups")
    # A private coup of a table dealt on demand: its player's, dealt and settled in one transaction.
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    number = models.PositiveSmallIntegerField()
    round_id = models.CharField(max_length=32, unique=True)
    state = models.CharField(max_length=14, choices=State.choices, default=State.BETTING)
    no_bet = models.BooleanField(default=False)
    rules = models.JSONField(help_text="the table's rules and limits when the coup opened")
    betting_closes_at = models.DateTimeField(null=True, blank=True)
    player_total = models.PositiveSmallIntegerField(null=True, blank=True)
    banker_total = models.PositiveSmallIntegerField(null=True, blank=True)
    winner = models.CharField(max_length=6, choices=WINNER_CHOICES, blank=True)
    player_pair = models.BooleanField(default=False)
    banker_pair = models.BooleanField(default=False)
    natural = models.BooleanField(default=False)
    player_shown_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    banker_shown_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Seed 000 §5.1: a hand shown by a seated patron (the dealer hands them the cards); neither: the dealer.
    player_shown_by_seat = models.ForeignKey(
        "tables.SeatSession", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    banker_shown_by_seat = models.ForeignKey(
        "tables.SeatSession", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    banker_shown_first = models.BooleanField(
        default=False, help_text="seed 000 §5.1.4: the Banker hand is shown first (the lone player's choice)"
    )
    dealer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="dealt_coups"
    )
    void_reason = models.TextField(blank=True)
    held_from = models.CharField(max_length=14, choices=State.choices, blank=True, help_text="the state it was held in")
    held_reason = models.TextField(blank=True)
    held_at = models.DateTimeField(null=True, blank=True)
    opened_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    voided_at = models.DateTimeField(null=True, blank=True)
    corrected_at = models.DateTimeField(
        null=True, blank=True, help_text="when a result correction was last approved: the result is its cards"
    )

    objects = TableWideQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["shoe", "number"], name="coup_number_per_shoe"),
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(state__in=["betting", "no_more_bets", "dealing", "held"], player__isnull=True),
                name="one_live_coup_per_table",
            ),
        ]
        indexes = [models.Index(fields=["table", "-opened_at"])]
        ordering = ["-opened_at", "-id"]
        permissions = [
            ("void_coup", "Can void a coup and refund its bets"),
            ("resolve_dealing_error", "Can hold a coup and decide a dealing error"),
            ("correct_result", "Can request and approve (four eyes) the correction of a recorded result"),
            ("void_dealt_coup", "Can approve (four eyes) the void of a coup whose first cards the players have seen"),
        ]

    def __str__(self) -> str:
        return f"{self.round_id} ({self.state})"

    @staticmethod
    def new_round_id(table_code: str) -> str:
        return f"{table_code.upper()}-{secrets.token_hex(5).upper()}"

    def result(self) -> CoupResult | None:
        """The result from the cards actually dealt (seed 000 §7.1), once the coup is complete; after an
        approved result correction, from the corrected cards (the dealt cards stay as they were recorded)."""
        if self.corrected_at is not None:
            return self.corrections.filter(state=ResultCorrection.State.APPROVED).latest("decided_at", "pk").result()
        return self.dealt_result()

    def dealt_result(self) -> CoupResult | None:
        """The result of the cards as they were dealt, whatever a correction later said."""
        cards = list(self.cards.all())
        if not cards:
            return None
        return CoupResult(
            player=tuple(Card.parse(c.card) for c in cards if c.hand == PLAYER),
            banker=tuple(Card.parse(c.card) for c in cards if c.hand == BANKER),
        )


class FourEyesRequest(models.Model):
    """A change one staff member requests and a different one decides (approves or rejects), once: the
    fields and the database's constraints that result corrections and void requests share."""

    class State(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        REJECTED = "rejected"

    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    class Meta:
        abstract = True
        ordering = ["-requested_at", "-id"]


def four_eyes_constraints(*, one_pending: str, four_eyes: str, decided_once: str) -> list[models.BaseConstraint]:
    """One pending request per coup; decided by someone else than its requester; decided once."""
    return [
        models.UniqueConstraint(fields=["coup"], condition=Q(state="pending"), name=one_pending),
        models.CheckConstraint(
            condition=Q(decided_by__isnull=True) | ~Q(decided_by=models.F("requested_by")), name=four_eyes
        ),
        models.CheckConstraint(
            condition=Q(state="pending", decided_by__isnull=True, decided_at__isnull=True)
            | (~Q(state="pending") & Q(decided_by__isnull=False, decided_at__isnull=False)),
            name=decided_once,
        ),
    ]


class ResultCorrection(FourEyesRequest):
    """A recorded result changed by four eyes: one staff member requests it with the corrected cards,
    another approves (or rejects) it, once. ``before`` and ``after`` are the results as the game core
    computes them from the cards (``CoupResult.as_dict``)."""

    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="corrections")
    player_cards = models.CharField(max_length=8, help_text="the player's corrected cards, codes in dealing order")
    banker_cards = models.CharField(max_length=8, help_text="the banker's corrected cards, codes in dealing order")
    before = models.JSONField(help_text="the result being corrected")
    after = models.JSONField(help_text="the corrected result")
    reason = models.TextField()

    class Meta(FourEyesRequest.Meta):
        constraints = four_eyes_constraints(
            one_pending="one_pending_correction",
            four_eyes="correction_four_eyes",
            decided_once="correction_decided_once",
        )

    def __str__(self) -> str:
        return f"correction {self.pk} of {self.coup.round_id} ({self.state})"

    def result(self) -> CoupResult:
        return resolve_hands(
            [Card.parse(code) for code in self.player_cards.split()],
            [Card.parse(code) for code in self.banker_cards.split()],
        )


class DealtCard(models.Model):
    """A card as it was dealt: its hand, its place in the coup and in the shoe (never twice)."""

    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="cards")
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="dealt_cards")
    position = models.PositiveSmallIntegerField(help_text="0-5: order in the coup")
    shoe_position = models.PositiveSmallIntegerField(help_text="index in the shoe, burn included")
    hand = models.CharField(max_length=6, choices=HAND_CHOICES)
    card = models.CharField(max_length=2)
    entered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    dealt_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["coup", "position"], name="card_position_per_coup"),
            models.UniqueConstraint(fields=["shoe", "shoe_position"], name="card_dealt_once_per_shoe"),
        ]
        ordering = ["coup", "position"]

    def __str__(self) -> str:
        return f"{self.card} to {self.hand}"


class VoidReason(models.TextChoices):
    """Why a coup is void, as the pit boss chose it. Before the first card any of them (or the pit boss's own
    words) voids it; once a card is out only §4.2 does (``tables.voids.coup_void_check``): the others stay
    for the coups voided with them before, and say what the rules do instead."""

    ORDER_NOT_RESTORABLE = "order_not_restorable", "Proper order cannot be restored (§4.2)"
    CARDS_REPLACED = "cards_replaced", "Cards replaced (§3.3 A): before the first card only"
    CARD_EXPOSED = "card_exposed", "Card exposed: before the first card only (then §5.1.8: the coup goes on)"
    SHOE_OR_CARD_DEFECT = "shoe_or_card_defect", "Shoe or card defect: before the first card only"
    CARD_COUNT = "card_count", "Too many or too few cards: before the first card only (then §4.3)"


class CoupVoidRequest(FourEyesRequest):
    """The void of a coup whose first cards the players have seen, by four eyes: a pit boss requests it
    (seed 000 §4.2, described), another holder of ``tables.void_dealt_coup`` approves or rejects it, once.
    While it is open the coup is held: no card, no result, no settlement."""

    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="void_requests")
    dealing_error = models.CharField(max_length=24, help_text="the ground (``VoidReason``): §4.2")
    description = models.TextField(help_text="the pit boss's account of why the dealing order cannot be restored")
    held_coup = models.BooleanField(help_text="the request held the coup (it was dealing): a rejection lets it go on")

    class Meta(FourEyesRequest.Meta):
        constraints = four_eyes_constraints(
            one_pending="one_pending_void_request",
            four_eyes="void_request_four_eyes",
            decided_once="void_request_decided_once",
        )

    def __str__(self) -> str:
        return f"void request {self.pk} of {self.coup.round_id} ({self.state})"


class HeldCard(models.Model):
    """A card entered for the wrong hand: it has left the shoe, and the pit decides where it goes (seed 000 §4.3).

    Pending while its coup is held; then dealt in proper order in that coup, kept as the next
    coup's first card, or discarded with the coup when the pit voids it. Never burned.
    """

    class Outcome(models.TextChoices):
        PENDING = "pending", "Waiting for the pit"
        NEXT_COUP = "next_coup", "Kept for the next coup"
        DEALT = "dealt", "Dealt in proper order"
        DISCARDED = "discarded", "Discarded with a void coup"

    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="held_cards")
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="held_cards")
    shoe_position = models.PositiveSmallIntegerField(help_text="index in the shoe, burn included")
    card = models.CharField(max_length=2)
    entered_for = models.CharField(max_length=6, choices=HAND_CHOICES)
    next_hand = models.CharField(max_length=6, choices=HAND_CHOICES, help_text="the hand whose card it was")
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    entered_at = models.DateTimeField(auto_now_add=True)
    outcome = models.CharField(max_length=10, choices=Outcome.choices, default=Outcome.PENDING)
    dealt_card = models.OneToOneField(
        DealtCard, null=True, blank=True, on_delete=models.PROTECT, related_name="held_card"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["shoe", "shoe_position"], name="held_card_once_per_shoe"),
            models.UniqueConstraint(fields=["coup"], condition=Q(outcome="pending"), name="one_pending_card_per_coup"),
            models.UniqueConstraint(fields=["shoe"], condition=Q(outcome="next_coup"), name="one_card_kept_per_shoe"),
        ]
        ordering = ["-entered_at", "-id"]

    def __str__(self) -> str:
        return f"{self.card} entered for the {self.entered_for} ({self.get_outcome_display()})"
