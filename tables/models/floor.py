"""The floor's tables, their limits, personal limit markers, dealers and players' profiles (seats: ``seating``)."""

from __future__ import annotations

import re
from decimal import Decimal
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from baccarat import rules as game_rules
from baccarat.coup import BANKER, PLAYER, TIE
from kernel.currencies import currency_validator
from kernel.money import MONEY
from tables.players import NICKNAME_MAX_LENGTH

CUT_CARD_RULES = [
    (game_rules.CUT_ONE_MORE_COUP, "Finish the coup and play one more"),
    (game_rules.CUT_END_OF_COUP, "End after the current coup"),
]


HAND_CHOICES = [(PLAYER, "Player"), (BANKER, "Banker")]


WINNER_CHOICES = [(PLAYER, "Player"), (BANKER, "Banker"), (TIE, "Tie")]


# The chips a player picks from (seed 004's five, and those a higher table maximum calls for): a table offers
# those up to its highest maximum in the player's currency (``tables.selectors.table_chips``).
DEFAULT_CHIP_VALUES = (1, 5, 10, 25, 100, 500, 1000)
MOST_CHIP_VALUES = 8


def default_chip_values() -> list[int]:
    return list(DEFAULT_CHIP_VALUES)


# The stream's origin goes into the table page's CSP (kernel.security.url_origin): a plain host, ASCII (an
# internationalised name in its punycode, xn--…) or a bracketed IPv6 address, and a port; no user or password.
VIDEO_NETLOC = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
# A playlist on the site's own origin, by its path: what the page's CSP already allows. Never "//host" or "/\host"
# (another origin to a browser) nor a ".." segment.
VIDEO_PATH = re.compile(r"/(?!.*\.\.)[A-Za-z0-9_-][A-Za-z0-9._~/-]*\.m3u8")


def video_url_validator(url: str) -> None:
    """Players' pages play the stream: https only (http too where ``VIDEO_URL_ALLOW_HTTP``, development and tests),
    or a playlist on the site's own origin, by its path (the demo's test stream: ``casino.players.video``)."""
    if VIDEO_PATH.fullmatch(url):
        return
    parts = urlsplit(url)
    if parts.scheme != "https" and not (parts.scheme == "http" and settings.VIDEO_URL_ALLOW_HTTP):
        raise ValidationError(
            "The video URL must start with https:// (an HLS playlist, .m3u8, served over https), or be a playlist's "
            "path on this site (/video/live3/live.m3u8)."
        )
    if not VIDEO_NETLOC.fullmatch(parts.netloc):
        raise ValidationError(
            "The video URL's host must be a plain name in ASCII (an internationalised one in its xn-- form) or an "
            "IP address, with no user name or password in it."
        )


def chip_values_validator(values: object) -> None:
    if (
        not isinstance(values, list)
        or not 1 <= len(values) <= MOST_CHIP_VALUES
        or not all(type(value) is int and 0 < value <= 1_000_000 for value in values)
        or values != sorted(set(values))
    ):
        raise ValidationError(
            f"Chip values are 1 to {MOST_CHIP_VALUES} whole amounts, each from 1 to 1,000,000, smallest first, "
            "none twice: [1, 5, 25, 100]."
        )


BET_TYPE_CHOICES = [(bet, bet.replace("_", " ").capitalize()) for bet in game_rules.MAIN_BETS + game_rules.SIDE_BETS]


class Table(models.Model):
    class DealingMode(models.TextChoices):
        AUTOMATIC = "automatic", "Automatic (RNG shoe)"
        DEALER = "dealer", "Dealer (physical shoe)"
        # Seed 004: each player deals alone, on demand, from a private RNG shoe (``casino.lifecycle.rng``).
        RNG = "rng", "Dealt on demand (private RNG shoes)"

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
    # Seed 002's big table (``tables.shoe_holders``): a dealer table's patrons hold the shoe in turn; off, the
    # croupier controls it (mini-Baccarat).
    patrons_hold_shoe = models.BooleanField(
        default=False, help_text="Dealer tables: the patrons hold the shoe in turn (seed 002); off: the croupier."
    )
    tie_shoe_stays = models.BooleanField(
        default=True, help_text="Where the patrons hold the shoe: a tie leaves it with its holder; off: it moves on."
    )
    betting_seconds = models.PositiveSmallIntegerField(default=15, validators=[MinValueValidator(1)])
    chip_values = models.JSONField(
        default=default_chip_values,
        validators=[chip_values_validator],
        help_text="The chips players pick from, smallest first; those above the table's maximum are not offered.",
    )
    # A dealer table's live video (docs/live.md, Video): an HLS playlist the pit boss sets; empty, no video.
    video_url = models.CharField(
        max_length=500,
        blank=True,
        validators=[video_url_validator],
        help_text="The table's live stream, an HLS playlist (https://…/live.m3u8, or its path on this site) players "
        "watch; empty: no video.",
    )
    # The pit it belongs to (tables.models.pits), if any: its pit bosses supervise it.
    pit = models.ForeignKey("tables.Pit", null=True, blank=True, on_delete=models.SET_NULL, related_name="tables")
    # Limits: a LimitSet per currency the table takes bets in.
    no_bet_coups_ordered = models.PositiveSmallIntegerField(default=0)
    # The seated patron who holds the shoe now (None: the croupier), and the coups resolved since it came to them
    # (none: they may still decline it); written by ``tables.shoe_holders`` only.
    shoe_holder = models.ForeignKey(
        "tables.SeatSession", null=True, blank=True, editable=False, on_delete=models.PROTECT, related_name="+"
    )
    shoe_holder_coups = models.PositiveIntegerField(default=0, editable=False)

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

    def clean(self) -> None:
        if self.patrons_hold_shoe and self.dealing_mode != self.DealingMode.DEALER:
            raise ValidationError(
                {"patrons_hold_shoe": "The patrons hold the shoe only at a dealer table: an RNG table has no seats."}
            )

    @property
    def dealt_on_demand(self) -> bool:
        """Each player deals their own coups from a private shoe: no betting window, no loop."""
        return self.dealing_mode == self.DealingMode.RNG

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
            patrons_hold_shoe=self.patrons_hold_shoe,
            tie_shoe_stays=self.tie_shoe_stays,
        )


class LimitSet(models.Model):
    """A table's limits in one currency: the maximum differential (seed 000 §6.1) here, per bet type in
    ``BetLimit``. A table takes bets only in the currencies it has a limit set for."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="limit_sets")
    currency = models.CharField(max_length=3, validators=[currency_validator])
    max_differential = models.DecimalField(**MONEY, default=Decimal("5000.00"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "currency"], name="one_limit_set_per_table_and_currency"),
            models.CheckConstraint(condition=Q(max_differential__gt=0), name="max_differential_positive"),
        ]
        ordering = ["table", "currency"]

    def __str__(self) -> str:
        return f"{self.table.code} {self.currency}"


class BetLimit(models.Model):
    """A table's minimum and maximum stake for one bet type, in its limit set's currency.

    ``table_maximum`` caps the total of this bet type across the whole table: the
    tie and bonus bets of seed 000 §6.1.3, which stay outside the differential.
    """

    limit_set = models.ForeignKey(LimitSet, on_delete=models.CASCADE, related_name="limits")
    bet_type = models.CharField(max_length=24, choices=BET_TYPE_CHOICES)
    minimum = models.DecimalField(**MONEY)
    maximum = models.DecimalField(**MONEY)
    table_maximum = models.DecimalField(**MONEY, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["limit_set", "bet_type"], name="one_limit_per_bet_type"),
            models.CheckConstraint(
                condition=Q(minimum__gt=0) & Q(maximum__gte=models.F("minimum")), name="limit_order"
            ),
        ]
        ordering = ["limit_set", "id"]

    def __str__(self) -> str:
        return f"{self.limit_set} {self.bet_type} {self.minimum}-{self.maximum}"


class PersonalLimitMarker(models.Model):
    """A player's own min/max at a table (seed 000 glossary), granted by a pit boss: for the bet types it
    names, in one of the table's currencies; the player's other bets follow the table's limits."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="limit_markers")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="limit_markers")
    currency = models.CharField(max_length=3, validators=[currency_validator])
    bet_types = models.JSONField(help_text="the bet types the marker's limits apply to")
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
        return f"{self.player} at {self.table.code}: {self.minimum}-{self.maximum} {self.currency}"


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


class PlayerProfile(models.Model):
    """What other players see of a player (``tables.players``): the nickname they chose, if any."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="player_profile"
    )
    nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"profile of {self.user}"
