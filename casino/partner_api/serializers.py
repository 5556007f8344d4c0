"""What the partner API's Deal reads and answers (a table dealt on demand), in the partner API's conventions
(``partners.api.serializers``: amounts as strings, a JSON number or a string for a flag refused)."""

from __future__ import annotations

from rest_framework import serializers

from partners.api.serializers import MONEY, BetStakesField, JsonBodySerializer
from partners.identifiers import PLAYER_ID_PATTERN
from tables.models import HAND_CHOICES, WINNER_CHOICES
from wagering.models import BetSettlement

COMMITMENT_PATTERN = r"^[0-9a-f]{64}$"


class StrictBooleanField(serializers.BooleanField):
    """JSON ``true`` or ``false`` only (DRF's would take ``"yes"``, ``1``...)."""

    def to_internal_value(self, data: object) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class PlayerIdField(serializers.RegexField):
    def __init__(self, **kwargs) -> None:
        super().__init__(PLAYER_ID_PATTERN, max_length=100, trim_whitespace=False, **kwargs)


class DealShoeQuerySerializer(serializers.Serializer):
    player_id = PlayerIdField(help_text="your id for the player")


class DealSerializer(JsonBodySerializer):
    """A deal: the bets (Deal), or ``"rebet": true`` (Rebet and deal: the player's last bets at the table)."""

    player_id = PlayerIdField(help_text="your id for the player")
    bets = BetStakesField(required=False)
    rebet = StrictBooleanField(required=False, default=False, help_text="true: the player's last bets here again")
    commitment = serializers.RegexField(
        COMMITMENT_PATTERN,
        help_text="the commitment of the player's shoe in play, as GET /tables/{code}/deal/ showed it: a deal "
        "from another shoe is refused (shoe_changed)",
    )

    def validate(self, attrs: dict) -> dict:
        if attrs["rebet"] == ("bets" in attrs):
            raise serializers.ValidationError(
                {"bets": ['send the bets, or "rebet": true to repeat the last ones (not both)']}
            )
        return attrs


class PrivateShoeSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="the shoe's number at its table")
    decks = serializers.IntegerField()
    commitment = serializers.CharField(help_text='sha256("<salt>:<card codes>"), published before its first deal')
    coups = serializers.IntegerField(help_text="coups dealt from it")
    cards_left = serializers.IntegerField()
    burn_shown = serializers.CharField(allow_null=True, help_text="the burn card shown when the shoe started")


class DealShoeSerializer(serializers.Serializer):
    table = serializers.CharField()
    player_id = serializers.CharField()
    shoe = PrivateShoeSerializer(help_text="the player's shoe in play: the next deal is dealt from it")


class DealtCardSerializer(serializers.Serializer):
    hand = serializers.ChoiceField(choices=HAND_CHOICES)
    card = serializers.CharField(help_text="rank and suit, e.g. KH, TS, 9D")


class RevealedShoeSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    commitment = serializers.CharField()
    card_order = serializers.ListField(child=serializers.CharField())
    salt = serializers.CharField()


class DealResultSerializer(serializers.Serializer):
    table = serializers.CharField()
    player_id = serializers.CharField()
    round_id = serializers.CharField(help_text="the round, as GET /rounds/{round_id}/ and the webhooks name it")
    number = serializers.IntegerField(help_text="the coup's number in its shoe")
    shoe_number = serializers.IntegerField()
    cards = DealtCardSerializer(many=True, help_text="in the order dealt")
    player_total = serializers.IntegerField()
    banker_total = serializers.IntegerField()
    winner = serializers.ChoiceField(choices=WINNER_CHOICES)
    player_pair = serializers.BooleanField()
    banker_pair = serializers.BooleanField()
    natural = serializers.BooleanField()
    currency = serializers.CharField(help_text="ISO 4217: the currency of every amount here")
    bets = serializers.DictField(child=serializers.DecimalField(**MONEY), help_text="stake per bet type")
    returned = serializers.DictField(
        child=serializers.DecimalField(**MONEY), help_text="per bet type: stake and winnings paid back"
    )
    outcomes = serializers.DictField(child=serializers.ChoiceField(choices=BetSettlement.Outcome.choices))
    total_returned = serializers.DecimalField(**MONEY)
    balance = serializers.DecimalField(**MONEY, help_text="the wallet's balance once the coup is paid")
    shoe_ended = RevealedShoeSerializer(
        allow_null=True, help_text="the shoe this coup's cut card ended, revealed; else null"
    )
    shoe = PrivateShoeSerializer(help_text="the player's shoe in play now (a new one once the cut card came out)")
