"""What the partner API reads and writes. Amounts travel as strings (``"25.00"``), never numbers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal

from django.core.validators import URLValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from baccarat import rules as game_rules
from partners.identifiers import PLAYER_ID_PATTERN
from partners.models import WebhookDelivery
from partners.selectors.tables import TABLE_CLOSED, TABLE_OPEN
from tables.models import BET_TYPE_CHOICES, HAND_CHOICES, WINNER_CHOICES, Coup, Shoe, Table
from wagering.models import Bet, BetSettlement, LedgerTransaction

MONEY = {"max_digits": 14, "decimal_places": 2}
AMOUNT_PATTERN = r"^[0-9]{1,12}(\.[0-9]{1,2})?$"
BET_TYPES = [bet_type for bet_type, _ in BET_TYPE_CHOICES]
TABLE_STATES = [TABLE_CLOSED, TABLE_OPEN, *Coup.LIVE_STATES]


# --- Input ---------------------------------------------------------------------------------------


@extend_schema_field({"type": "string", "pattern": AMOUNT_PATTERN, "example": "25.00"})
class AmountField(serializers.DecimalField):
    """A positive amount with at most 2 decimals, as a string: a JSON number is refused (no floats for money)."""

    default_error_messages = {"not_an_amount": 'an amount is a string of digits with up to 2 decimals, e.g. "25.00"'}

    def __init__(self, **kwargs) -> None:
        super().__init__(**MONEY, min_value=Decimal("0.01"), **kwargs)

    def to_internal_value(self, data: object) -> Decimal:
        if not isinstance(data, str) or not re.fullmatch(AMOUNT_PATTERN, data):
            self.fail("not_an_amount")
        return super().to_internal_value(data)


@extend_schema_field(
    {
        "type": "object",
        "description": 'stake per bet type, e.g. {"banker": "25.00", "tie": "5.00"}',
        "properties": {bet_type: {"type": "string", "pattern": AMOUNT_PATTERN} for bet_type in BET_TYPES},
        "additionalProperties": False,
        "minProperties": 1,
        "example": {"banker": "25.00", "tie": "5.00"},
    }
)
class BetStakesField(serializers.DictField):
    child = AmountField()
    default_error_messages = {"empty": "there are no bets to place", "unknown_bet_type": "there is no bet {bet_type!r}"}

    def to_internal_value(self, data: object) -> dict[str, Decimal]:
        stakes = super().to_internal_value(data)
        if not stakes:
            self.fail("empty")
        for bet_type in stakes:
            if bet_type not in BET_TYPES:
                self.fail("unknown_bet_type", bet_type=bet_type)
        return stakes


class JsonBodySerializer(serializers.Serializer):
    """A JSON body: its text fields take strings only (DRF would quietly turn a number into one)."""

    def to_internal_value(self, data: object) -> dict:
        if isinstance(data, Mapping):
            not_text = {
                name: ["Not a valid string."]
                for name, field in self.fields.items()
                if isinstance(field, serializers.CharField) and data.get(name) is not None
                if not isinstance(data[name], str)
            }
            if not_text:
                raise serializers.ValidationError(not_text)
        return super().to_internal_value(data)


class PlayerCreateSerializer(JsonBodySerializer):
    """A player, by your id for it."""

    player_id = serializers.RegexField(
        PLAYER_ID_PATTERN, max_length=100, trim_whitespace=False, help_text="your id for the player"
    )


class TransferSerializer(JsonBodySerializer):
    """An amount to move between your float and the player's wallet."""

    amount = AmountField()


class BetBatchSerializer(JsonBodySerializer):
    """Bets confirmed together: all accepted, or none."""

    table = serializers.SlugField(max_length=20, help_text="the table's code: bets go on its coup taking bets")
    round_id = serializers.CharField(
        max_length=32, required=False, default="", help_text="if given, the coup the bets are meant for"
    )
    bets = BetStakesField()


class BetsQuerySerializer(serializers.Serializer):
    table = serializers.SlugField(max_length=20, required=False, help_text="only the bets at this table")
    round_id = serializers.CharField(max_length=32, required=False, help_text="only the bets on this round")


class RoundsQuerySerializer(serializers.Serializer):
    table = serializers.SlugField(max_length=20, required=False, help_text="only the rounds at this table")
    date_from = serializers.DateField(required=False, help_text="first UTC day (the day the coup opened)")
    date_to = serializers.DateField(required=False, help_text="last UTC day, included")

    def validate(self, attrs: dict) -> dict:
        if attrs.get("date_from") and attrs.get("date_to") and attrs["date_from"] > attrs["date_to"]:
            raise serializers.ValidationError({"date_to": ["date_to is before date_from"]})
        return attrs


class WebhookCreateSerializer(JsonBodySerializer):
    """Where to send your events."""

    url = serializers.URLField(
        max_length=500,
        validators=[URLValidator(schemes=["http", "https"])],
        help_text="where to POST the events: an https URL of a public address",
    )
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=WebhookDelivery.EventType.choices),
        required=False,
        min_length=1,
        help_text="the event types to receive (default: all)",
    )


# --- Output --------------------------------------------------------------------------------------


class PlayerSerializer(serializers.Serializer):
    player_id = serializers.CharField()
    currency = serializers.CharField(help_text="ISO 4217: the currency of every amount here")
    balance = serializers.DecimalField(
        **MONEY, allow_null=True, help_text="the wallet's balance (null: a seamless wallet, the partner holds it)"
    )
    created_at = serializers.DateTimeField()


class TransferResultSerializer(serializers.Serializer):
    transaction_id = serializers.IntegerField()
    currency = serializers.CharField(help_text="ISO 4217: the currency of every amount here")
    kind = serializers.ChoiceField(
        choices=[LedgerTransaction.Kind.DEPOSIT, LedgerTransaction.Kind.WITHDRAWAL], help_text="deposit or withdrawal"
    )
    player_id = serializers.CharField()
    amount = serializers.DecimalField(**MONEY)
    balance = serializers.DecimalField(**MONEY, help_text="the wallet's balance just after the transfer")
    created_at = serializers.DateTimeField()


class CardSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="0-5: the order in the coup")
    hand = serializers.ChoiceField(choices=HAND_CHOICES)
    card = serializers.CharField(help_text="rank and suit, e.g. KH, TS, 9D")


class CoupSerializer(serializers.Serializer):
    round_id = serializers.CharField()
    number = serializers.IntegerField(help_text="the coup's number in its shoe")
    shoe = serializers.IntegerField(help_text="the shoe's number at its table")
    state = serializers.ChoiceField(choices=Coup.State.choices)
    no_bet = serializers.BooleanField(help_text="a coup played without bets (burn, or ordered by the pit boss)")
    betting_closes_at = serializers.DateTimeField(allow_null=True)
    cards = CardSerializer(many=True)
    player_total = serializers.IntegerField(allow_null=True)
    banker_total = serializers.IntegerField(allow_null=True)
    winner = serializers.ChoiceField(choices=WINNER_CHOICES, allow_null=True)
    player_pair = serializers.BooleanField()
    banker_pair = serializers.BooleanField()
    natural = serializers.BooleanField()


class RulesSerializer(serializers.Serializer):
    decks = serializers.IntegerField()
    burn = serializers.ChoiceField(choices=game_rules.BURN_PROCEDURES)
    cut_card_from_bottom = serializers.IntegerField()
    cut_card_rule = serializers.ChoiceField(choices=game_rules.CUT_CARD_RULES)
    commission = serializers.BooleanField(help_text="5% on banker wins; false: a banker win with 6 pays 1:2")
    tie_pays = serializers.IntegerField(help_text="8 or 9 (to 1)")
    side_bets = serializers.ListField(child=serializers.ChoiceField(choices=game_rules.SIDE_BETS))
    forbid_player_and_banker = serializers.BooleanField()
    betting_seconds = serializers.IntegerField(
        allow_null=True, help_text="the betting window; null: a table dealt on demand (dealing_mode rng) has none"
    )
    max_differential = serializers.DecimalField(
        **MONEY, allow_null=True, help_text="in your currency; null: the table takes no bets in it"
    )


class LimitSerializer(serializers.Serializer):
    bet_type = serializers.ChoiceField(choices=BET_TYPE_CHOICES)
    minimum = serializers.DecimalField(**MONEY)
    maximum = serializers.DecimalField(**MONEY)
    table_maximum = serializers.DecimalField(
        **MONEY, allow_null=True, help_text="the most the whole table may stake on it (tie and side bets)"
    )


class PaytableSerializer(serializers.Serializer):
    bet_type = serializers.ChoiceField(choices=BET_TYPE_CHOICES)
    label = serializers.CharField()
    description = serializers.CharField()
    pays = serializers.DictField(
        child=serializers.DecimalField(max_digits=6, decimal_places=2),
        help_text="net payout per unit staked, by event (other events lose the stake)",
    )
    odds = serializers.CharField(help_text="the best payout, e.g. 11:1")


class TableShoeSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    commitment = serializers.CharField(allow_null=True, help_text="SHA-256 of the salt and order (RNG shoes)")


class TableSerializer(serializers.Serializer):
    code = serializers.SlugField()
    name = serializers.CharField()
    is_open = serializers.BooleanField()
    state = serializers.ChoiceField(choices=TABLE_STATES, help_text="the live coup's state, else open or closed")
    dealing_mode = serializers.ChoiceField(
        choices=Table.DealingMode.choices,
        help_text="automatic or dealer: bets go on the table's coups (POST /players/{player_id}/bets/); rng: each "
        "player deals alone from a private shoe (GET and POST /tables/{code}/deal/)",
    )
    dealer = serializers.CharField(allow_null=True)
    currency = serializers.CharField(help_text="your currency: the limits' and the differential's")
    currencies = serializers.ListField(
        child=serializers.CharField(), help_text="the currencies the table takes bets in (it has limits for)"
    )
    rules = RulesSerializer()
    limits = LimitSerializer(many=True, help_text="in your currency; empty: the table takes no bets in it")
    paytables = PaytableSerializer(many=True)
    shoe = TableShoeSerializer(allow_null=True, help_text="the shoe in play")
    current_coup = CoupSerializer(allow_null=True, help_text="the live coup, else the latest")


class BetOddsSerializer(serializers.Serializer):
    bet_type = serializers.ChoiceField(choices=BET_TYPE_CHOICES)
    label = serializers.CharField()
    house_edge = serializers.DecimalField(max_digits=10, decimal_places=8)
    rtp = serializers.DecimalField(max_digits=10, decimal_places=8, help_text="return to player, 1 - house edge")
    rtp_exact = serializers.CharField(help_text="the RTP as an exact fraction, numerator/denominator")


class TableDetailSerializer(TableSerializer):
    roads = serializers.DictField(help_text="the five roadmaps of the shoe in play (as `manage.py roadmap --json`)")
    odds = BetOddsSerializer(many=True, help_text="exact, for a full shoe of the table's decks")


class ShoeVerificationSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    commitment_ok = serializers.BooleanField()
    coups_checked = serializers.IntegerField()
    mismatches = serializers.ListField(child=serializers.CharField())


class ShoeSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    state = serializers.ChoiceField(choices=Shoe.State.choices)
    decks = serializers.IntegerField()
    shuffle_method = serializers.ChoiceField(choices=Shoe.ShuffleMethod.choices)
    commitment = serializers.CharField(allow_null=True, help_text='sha256("<salt>:<card codes>") of an RNG shoe')
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    coups = serializers.IntegerField(help_text="coups started")
    revealed = serializers.BooleanField(help_text="an RNG shoe out of play: its order and salt are shown")
    card_order = serializers.ListField(child=serializers.CharField(), allow_null=True)
    salt = serializers.CharField(allow_null=True)
    burn_shown = serializers.CharField(allow_null=True)
    burned_cards = serializers.ListField(child=serializers.CharField(), allow_null=True)
    verification = ShoeVerificationSerializer(allow_null=True)


class BetSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    batch_id = serializers.IntegerField()
    round_id = serializers.CharField(source="coup.round_id")
    table = serializers.CharField(source="coup.table.code")
    player_id = serializers.CharField(source="user.partner_player.external_id")
    bet_type = serializers.ChoiceField(choices=BET_TYPE_CHOICES)
    stake = serializers.DecimalField(**MONEY)
    state = serializers.ChoiceField(choices=Bet.State.choices)
    outcome = serializers.ChoiceField(
        choices=BetSettlement.Outcome.choices, source="settlement.outcome", allow_null=True
    )
    returned = serializers.DecimalField(
        **MONEY, source="settlement.returned", allow_null=True, help_text="stake and winnings paid back"
    )
    placed_at = serializers.DateTimeField(source="created_at")
    settled_at = serializers.DateTimeField(source="settlement.created_at", allow_null=True)


class PlacedBetSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    bet_type = serializers.ChoiceField(choices=BET_TYPE_CHOICES)
    stake = serializers.DecimalField(**MONEY)


class BetBatchResultSerializer(serializers.Serializer):
    """Every partner bet answers one: built directly (``to_representation``), as the fields below describe it for
    the schema (DRF deep-copies a serializer's fields for each one made: a tenth of a bet's request)."""

    batch_id = serializers.IntegerField()
    currency = serializers.CharField(help_text="ISO 4217: the currency of every amount here")
    round_id = serializers.CharField()
    table = serializers.CharField()
    player_id = serializers.CharField()
    bets = PlacedBetSerializer(many=True)
    total = serializers.DecimalField(**MONEY)
    balance = serializers.DecimalField(
        **MONEY, allow_null=True, help_text="the balance just after the bets (a seamless wallet's as it answered)"
    )
    placed_at = serializers.DateTimeField()

    def to_representation(self, record: Mapping) -> dict:
        balance = record["balance"]
        return {
            "batch_id": record["batch_id"],
            "currency": record["currency"],
            "round_id": record["round_id"],
            "table": record["table"],
            "player_id": record["player_id"],
            "bets": [
                {"id": bet.pk, "bet_type": bet.bet_type, "stake": _MONEY_SHOWN.to_representation(bet.stake)}
                for bet in record["bets"]
            ],
            "total": _MONEY_SHOWN.to_representation(record["total"]),
            "balance": None if balance is None else _MONEY_SHOWN.to_representation(balance),
            "placed_at": _TIME_SHOWN.to_representation(record["placed_at"]),
        }


_MONEY_SHOWN, _TIME_SHOWN = serializers.DecimalField(**MONEY), serializers.DateTimeField()  # formatting only


class RoundSerializer(CoupSerializer):
    table = serializers.CharField()
    opened_at = serializers.DateTimeField()
    resolved_at = serializers.DateTimeField(allow_null=True)
    settled_at = serializers.DateTimeField(allow_null=True)
    voided_at = serializers.DateTimeField(allow_null=True)
    void_reason = serializers.CharField(allow_null=True)
    bets = BetSerializer(many=True, help_text="your players' bets on it")


class RoundBetSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    bet_type = serializers.ChoiceField(choices=BET_TYPE_CHOICES)
    stake = serializers.DecimalField(**MONEY)
    state = serializers.ChoiceField(choices=Bet.State.choices)
    outcome = serializers.ChoiceField(
        choices=BetSettlement.Outcome.choices, source="settlement.outcome", allow_null=True
    )
    returned = serializers.DecimalField(**MONEY, source="settlement.returned", allow_null=True)


class PlayerRoundSerializer(CoupSerializer):
    table = serializers.CharField()
    currency = serializers.CharField(help_text="ISO 4217: the currency of every amount here")
    opened_at = serializers.DateTimeField()
    bets = RoundBetSerializer(many=True)
    staked = serializers.DecimalField(**MONEY, help_text="bets standing (not cancelled)")
    returned = serializers.DecimalField(**MONEY)
    balance_before = serializers.DecimalField(**MONEY, allow_null=True, help_text="before the first bet")
    balance_after = serializers.DecimalField(**MONEY, allow_null=True, help_text="after the last movement")


class WebhookEndpointSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=WebhookDelivery.EventType.choices))
    created_at = serializers.DateTimeField()


class WebhookEndpointCreatedSerializer(WebhookEndpointSerializer):
    secret = serializers.CharField(help_text="the HMAC-SHA256 signing key: shown this once")


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="stable, e.g. above_maximum, insufficient_funds, not_found")
    message = serializers.CharField()
    details = serializers.DictField(help_text="what the code is about, e.g. the limit and by how much")


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()
