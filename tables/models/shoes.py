"""Shoes: their order (encrypted for an RNG shoe), burn, cut card and where they stand."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import Q

from baccarat import rules as game_rules
from baccarat.cards import Card
from kernel.encryption import decrypt
from tables.models.floor import CUT_CARD_RULES, Table


class TableWideQuerySet(models.QuerySet):
    """A table's coups or shoes: one dealt on demand also holds each player's private ones (``player`` set)."""

    def table_wide(self) -> TableWideQuerySet:
        return self.filter(player__isnull=True)


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
    # A table dealt on demand (``Table.DealingMode.RNG``): the player whose private shoe this is; None: the table's.
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="private_shoes"
    )
    number = models.PositiveIntegerField()
    decks = models.PositiveSmallIntegerField()
    shuffle_method = models.CharField(max_length=12, choices=ShuffleMethod.choices)
    seal_number = models.CharField(max_length=40, blank=True)
    # The shuffle record of a physical shoe (seed 000 §2.1.1-§2.1.2), confirmed by the dealer who records it
    # (``prepared_by``): None on an RNG shoe, and on a physical shoe prepared before these were recorded.
    decks_complete = models.BooleanField(null=True)
    no_marks = models.BooleanField(null=True)
    no_damage = models.BooleanField(null=True)
    seal_intact = models.BooleanField(null=True, help_text="a sealed preliminary shuffle: the seal arrived undamaged")
    cctv_reference = models.CharField(max_length=60, blank=True)
    # Who shuffled: a sealed preliminary shuffle is done in the preparation zone (§2.1.1), by someone the dealer
    # names from the set's record; a table shuffle is the recording dealer's own (empty: ``prepared_by``).
    shuffled_by = models.CharField(max_length=80, blank=True)
    # The cut (§2.1.3): cards from the top, by the dealer (no seat) or the patron at ``cut_by_seat``.
    cut_cards = models.PositiveSmallIntegerField(null=True, blank=True, help_text="cards from the top")
    cut_by_seat = models.PositiveSmallIntegerField(null=True, blank=True, help_text="empty: the dealer cut")
    # The secrets of an RNG shoe, encrypted (kernel.encryption) until shown once the shoe is out of play:
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

    objects = TableWideQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="shoe_number_per_table"),
            models.UniqueConstraint(
                fields=["table"], condition=Q(state="in_play", player__isnull=True), name="one_shoe_in_play_per_table"
            ),
            models.UniqueConstraint(
                fields=["table", "player"],
                condition=Q(state="in_play", player__isnull=False),
                name="one_private_shoe_in_play_per_player",
            ),
        ]
        ordering = ["table", "-number"]

    def __str__(self) -> str:
        return f"{self.table.code} shoe {self.number}"

    def __getstate__(self) -> dict:
        """A shoe pickled (a cache, an error report) never carries its order decrypted."""
        state = super().__getstate__()
        state.pop("_cards_decrypted", None)
        return state

    @property
    def has_card_order(self) -> bool:
        """An RNG shoe, which deals from its recorded order (a physical shoe has none)."""
        return bool(self.card_order_encrypted)

    @property
    def cards(self) -> tuple[Card, ...]:
        """The order, decrypted: for the dealing code, and the verification once the shoe is revealed. Decrypted
        once an instance (a deal asks whether its shoe has ended, then deals from it), again if the order changes."""
        encrypted = self.card_order_encrypted
        decrypted = self.__dict__.get("_cards_decrypted")
        if decrypted is None or decrypted[0] != encrypted:
            decrypted = (encrypted, tuple(Card.parse(code) for code in decrypt(encrypted).split()))
            self.__dict__["_cards_decrypted"] = decrypted
        return decrypted[1]

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
