"""The casino floor: tables, seats, shoes, coups, dealt cards, limit markers, dealers, audit."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from baccarat import rules as game_rules
from baccarat.cards import Card
from baccarat.coup import BANKER, PLAYER, TIE, CoupResult, resolve_hands
from casino.encryption import decrypt
from casino.money import MONEY
from tables.players import NICKNAME_MAX_LENGTH

CUT_CARD_RULES = [
    (game_rules.CUT_ONE_MORE_COUP, "Finish the coup and play one more"),
    (game_rules.CUT_END_OF_COUP, "End after the current coup"),
]

HAND_CHOICES = [(PLAYER, "Player"), (BANKER, "Banker")]
WINNER_CHOICES = [(PLAYER, "Player"), (BANKER, "Banker"), (TIE, "Tie")]
BET_TYPE_CHOICES = [(bet, bet.replace("_", " ").capitalize()) for bet in game_rules.MAIN_BETS + game_rules.SIDE_BETS]


class Table(models.Model):
    class DealingMode(models.TextChoices):
        AUTOMATIC = "automatic", "Automatic (RNG shoe)"
        DEALER = "dealer", "Dealer (physical shoe)"

    code = models.SlugField(max_length=20, unique=True)
    name = models.CharField(max_length=80)
    is_open = models.BooleanField(default=False)
    dealing_mode = models.CharField(max_length=10, choices=DealingMode.choices, default=DealingMode.AUTOMATIC)
    # Rules (snapshotted onto each coup when it opens: changes take effect at the next coup).
    decks = models.PositiveSmallIntegerField(default=8, validators=[MinValueValidator(1), MaxValueValidator(8)])
    burn_procedure = models.CharField(
        max_length=16,
        choices=[
            (game_rules.BURN_CARD, "Burn by the first card"),
            (game_rules.BURN_NO_BET_COUPS, "Three no-bet coups"),
        ],
        default=game_rules.BURN_CARD,
    )
    cut_card_from_bottom = models.PositiveSmallIntegerField(default=52)
    cut_card_rule = models.CharField(
        max_length=16,
        choices=CUT_CARD_RULES,
        default=game_rules.CUT_ONE_MORE_COUP,
    )
    commission = models.BooleanField(default=True, help_text="5% on banker wins; off: a banker win with 6 pays 1:2")
    tie_pays = models.PositiveSmallIntegerField(choices=[(8, "8:1"), (9, "9:1")], default=8)
    side_bets = models.JSONField(default=list, blank=True)
    forbid_player_and_banker = models.BooleanField(default=True)
    betting_seconds = models.PositiveSmallIntegerField(default=15, validators=[MinValueValidator(1)])
    # Limits: per bet type in BetLimit; the differential here (seed 000 §6.1).
    max_differential = models.DecimalField(**MONEY, default=Decimal("5000.00"))
    no_bet_coups_ordered = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["code"]
        permissions = [
            ("operate_table", "Can open and close tables and change their rules and limits"),
            ("order_no_bet_coups", "Can order no-bet coups"),
            ("replace_cards", "Can replace the cards"),
            ("deal", "Can deal at a dealer table"),
        ]

    def __str__(self) -> str:
        return f"{self.code} ({self.name})"

    def game_rules(self) -> game_rules.TableRules:
        return game_rules.TableRules(
            decks=self.decks,
            burn=self.burn_procedure,
            cut_card_from_bottom=self.cut_card_from_bottom,
            cut_card_rule=self.cut_card_rule,
            commission=self.commission,
            tie_pays=self.tie_pays,
            side_bets=tuple(self.side_bets),
            forbid_player_and_banker=self.forbid_player_and_banker,
        )


class BetLimit(models.Model):
    """A table's minimum and maximum stake for one bet type.

    ``table_maximum`` caps the total of this bet type across the whole table: the
    tie and bonus bets of seed 000 §6.1.3, which stay outside the differential.
    """

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="limits")
    bet_type = models.CharField(max_length=24, choices=BET_TYPE_CHOICES)
    minimum = models.DecimalField(**MONEY)
    maximum = models.DecimalField(**MONEY)
    table_maximum = models.DecimalField(**MONEY, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "bet_type"], name="one_limit_per_bet_type"),
            models.CheckConstraint(
                condition=Q(minimum__gt=0) & Q(maximum__gte=models.F("minimum")), name="limit_order"
            ),
        ]
        ordering = ["table", "id"]

    def __str__(self) -> str:
        return f"{self.table.code} {self.bet_type} {self.minimum}-{self.maximum}"


class Seat(models.Model):
    """One of the ten seats of a table (seed 000 §1.1), each a betting zone."""

    SEATS_PER_TABLE = 10
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(SEATS_PER_TABLE)])
    player = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="one_seat_number_per_table")]
        ordering = ["table", "number"]

    def __str__(self) -> str:
        return f"{self.table.code} seat {self.number}"


class Shoe(models.Model):
    class State(models.TextChoices):
        PREPARED = "prepared"
        IN_PLAY = "in_play", "In play"
        FINISHED = "finished"
        DISCARDED = "discarded"

    class ShuffleMethod(models.TextChoices):
        RNG = "rng", "RNG (CSPRNG Fisher–Yates)"
        PRELIMINARY = "preliminary", "Preliminary, sealed"
        TABLE = "table", "At the table"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="shoes")
    number = models.PositiveIntegerField()
    decks = models.PositiveSmallIntegerField()
    shuffle_method = models.CharField(max_length=12, choices=ShuffleMethod.choices)
    seal_number = models.CharField(max_length=40, blank=True)
    # The secrets of an RNG shoe, encrypted (casino.encryption) until shown once the shoe is out of play:
    # its card order (codes separated by spaces), the salt of its commitment, the cards burned face down.
    # Empty for a physical shoe. Read through ``cards`` (dealing) and ``reveal()``, never on a screen.
    card_order_encrypted = models.TextField(blank=True)
    cut_card_position = models.PositiveSmallIntegerField(help_text="cards before the cut card")
    # The table's cut card rule when the shoe was prepared: a change of rule waits for the next shoe.
    cut_card_rule = models.CharField(max_length=16, choices=CUT_CARD_RULES, default=game_rules.CUT_ONE_MORE_COUP)
    # Provably fair: published while in play; the salt (and the order) revealed once the shoe ends.
    commitment = models.CharField(max_length=64, blank=True)
    salt_encrypted = models.TextField(blank=True)
    burn_shown = models.CharField(max_length=2, blank=True)
    burned_cards_encrypted = models.TextField(blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PREPARED)
    # Progress through the shoe (see baccarat.shoe.ShoeState).
    position = models.PositiveSmallIntegerField(default=0)
    coups_started = models.PositiveSmallIntegerField(default=0)
    last_coup = models.PositiveSmallIntegerField(null=True, blank=True)
    prepared_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="shoe_number_per_table"),
            models.UniqueConstraint(fields=["table"], condition=Q(state="in_play"), name="one_shoe_in_play_per_table"),
        ]
        ordering = ["table", "-number"]

    def __str__(self) -> str:
        return f"{self.table.code} shoe {self.number}"

    @property
    def has_card_order(self) -> bool:
        """An RNG shoe, which deals from its recorded order (a physical shoe has none)."""
        return bool(self.card_order_encrypted)

    @property
    def cards(self) -> list[Card]:
        """The order, decrypted: for the dealing code, and the verification once the shoe is revealed."""
        return [Card.parse(code) for code in decrypt(self.card_order_encrypted).split()]

    @property
    def revealed(self) -> bool:
        """The order and salt may be shown: the shoe is out of play."""
        return self.state in (self.State.FINISHED, self.State.DISCARDED)

    def reveal(self) -> ShoeSecrets:
        """The order, salt and burned cards, decrypted; refused while the shoe is prepared or in play."""
        if not self.revealed:
            raise PermissionDenied(f"shoe {self.number} is {self.state}: its secrets are revealed when it ends")
        return ShoeSecrets(
            card_order=decrypt(self.card_order_encrypted).split(),
            salt=decrypt(self.salt_encrypted),
            burned_cards=decrypt(self.burned_cards_encrypted).split(),
        )


@dataclass(frozen=True)
class ShoeSecrets:
    card_order: list[str]
    salt: str
    burned_cards: list[str]


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

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["shoe", "number"], name="coup_number_per_shoe"),
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(state__in=["betting", "no_more_bets", "dealing", "held"]),
                name="one_live_coup_per_table",
            ),
        ]
        indexes = [models.Index(fields=["table", "-opened_at"])]
        ordering = ["-opened_at", "-id"]
        permissions = [
            ("void_coup", "Can void a coup and refund its bets"),
            ("resolve_dealing_error", "Can hold a coup and decide a dealing error"),
            ("correct_result", "Can request and approve (four eyes) the correction of a recorded result"),
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


class ResultCorrection(models.Model):
    """A recorded result changed by four eyes: one staff member requests it with the corrected cards,
    another approves (or rejects) it, once. ``before`` and ``after`` are the results as the game core
    computes them from the cards (``CoupResult.as_dict``)."""

    class State(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        REJECTED = "rejected"

    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="corrections")
    player_cards = models.CharField(max_length=8, help_text="the player's corrected cards, codes in dealing order")
    banker_cards = models.CharField(max_length=8, help_text="the banker's corrected cards, codes in dealing order")
    before = models.JSONField(help_text="the result being corrected")
    after = models.JSONField(help_text="the corrected result")
    reason = models.TextField()
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["coup"], condition=Q(state="pending"), name="one_pending_correction"),
            models.CheckConstraint(
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=models.F("requested_by")),
                name="correction_four_eyes",
            ),
            models.CheckConstraint(
                condition=Q(state="pending", decided_by__isnull=True, decided_at__isnull=True)
                | (~Q(state="pending") & Q(decided_by__isnull=False, decided_at__isnull=False)),
                name="correction_decided_once",
            ),
        ]
        ordering = ["-requested_at", "-id"]

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
    """Why a coup whose first card is out may be void (seed 000 §4, §3.3): nothing else voids it."""

    ORDER_NOT_RESTORABLE = "order_not_restorable", "Proper order cannot be restored (§4.2)"
    CARDS_REPLACED = "cards_replaced", "Cards replaced (§3.3)"
    CARD_EXPOSED = "card_exposed", "Card exposed"
    SHOE_OR_CARD_DEFECT = "shoe_or_card_defect", "Shoe or card defect"
    CARD_COUNT = "card_count", "Too many or too few cards"


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


class PersonalLimitMarker(models.Model):
    """A player's own min/max at a table (seed 000 glossary), granted by a pit boss."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="limit_markers")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="limit_markers")
    minimum = models.DecimalField(**MONEY)
    maximum = models.DecimalField(**MONEY)
    valid_from = models.DateTimeField()
    valid_until = models.DateTimeField(null=True, blank=True)
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="granted_limit_markers"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(minimum__gt=0) & Q(maximum__gte=models.F("minimum")), name="marker_order"
            )
        ]
        ordering = ["-valid_from"]

    def __str__(self) -> str:
        return f"{self.player} at {self.table.code}: {self.minimum}-{self.maximum}"


class DealerSession(models.Model):
    """Who deals at which table from when to when (rotation)."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="dealer_sessions")
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="dealer_sessions")
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table"], condition=Q(ended_at__isnull=True), name="one_dealer_per_table")
        ]
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.dealer} at {self.table.code}"


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


class PlayerProfile(models.Model):
    """What other players see of a player (``tables.players``): the nickname they chose, if any."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="player_profile"
    )
    nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"profile of {self.user}"
