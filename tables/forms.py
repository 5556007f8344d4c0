"""Forms of the pit-boss admin and the dealer console: they check input, the services change things."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model

from baccarat import rules as game_rules
from kernel.money import CENT, AmountField
from tables.models import (
    BET_TYPE_CHOICES,
    HAND_CHOICES,
    BetLimit,
    LimitSet,
    PersonalLimitMarker,
    Pit,
    Shoe,
    Table,
    VoidReason,
)
from tables.services import MARKER_BET_TYPES_DEFAULT, RULE_FIELDS

POSITIVE_AMOUNT = {"min_value": CENT}
REASON_HELP = "Required; recorded in the audit log."
RULES_TAKE_EFFECT = "Changes take effect at the next coup: a coup in progress keeps the rules it opened with."


class ReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), help_text=REASON_HELP)


class ResultCorrectionForm(ReasonForm):
    field_order = ("player_cards", "banker_cards", "reason")
    player_cards = forms.CharField(
        max_length=20,
        help_text="The player's cards in the order dealt, e.g. 'KS 4H 9D' (rank A 2-9 T J Q K, suit S H D C).",
    )
    banker_cards = forms.CharField(
        max_length=20,
        help_text="The banker's cards in the order dealt, e.g. '7C QD'. The result is computed from them.",
    )


class VoidForm(forms.Form):
    """Seed 000: before the first card any reason; once a card is out only §4.2, described (``tables.voids``)."""

    dealing_error = forms.ChoiceField(
        choices=[("", "---------"), *VoidReason.choices],
        required=False,
        help_text=(
            "Before the first card: any of these, or a reason below. Once a card is out (dealt or held) only "
            "'Proper order cannot be restored' (§4.2) voids the coup: a card shown by mistake does not, the coup "
            "is finished as normal (§5.1.8); a card out of turn goes to its proper place, in this coup or the next "
            "(§4.3: the held card's actions); the cards are replaced between coups (§3.3 A). Once the players have "
            "seen a card of the Player's or the Banker's first two, the void is a request that another holder of "
            "'approve the void of a dealt coup' decides; the coup stays held until then."
        ),
    )
    reason = forms.CharField(
        label="Reason or description",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=(
            "Before the first card: any reason. After it: what happened, and why the order cannot be restored "
            "(required). Recorded in the audit log."
        ),
    )

    def clean(self) -> dict:
        cleaned = super().clean()
        if not cleaned.get("dealing_error") and not cleaned.get("reason", "").strip():
            raise forms.ValidationError("Choose a dealing error or write a reason.")
        return cleaned


class KeepForNextCoupForm(ReasonForm):
    no_bet = forms.BooleanField(
        label="The next coup takes no bets",
        required=False,
        initial=True,
        help_text="Seed 000 §4.3: the pit decides whether the coup this card opens takes bets.",
    )


class NoBetCoupsForm(ReasonForm):
    field_order = ("count", "reason")
    count = forms.IntegerField(
        label="Number of no-bet coups", min_value=1, max_value=10, initial=1, help_text="The next coups take no bets."
    )


class NoBetCoupsReduceForm(ReasonForm):
    field_order = ("count", "reason")
    count = forms.IntegerField(
        label="No-bet coups to take off",
        min_value=1,
        max_value=10,
        initial=1,
        help_text="Seed 000 §3.1.2: e.g. a player wants to bet now and play the remaining ones later; say so below.",
    )


class DealerLoginForm(forms.Form):
    dealer = forms.ModelChoiceField(
        queryset=get_user_model()._default_manager.none(),
        help_text="The dealer logged in now (if any) is logged out: rotation.",
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["dealer"].queryset = (
            get_user_model()
            ._default_manager.with_perm("tables.deal", include_superusers=False, backend=settings.PERMISSION_BACKEND)
            .order_by(get_user_model().USERNAME_FIELD)
        )


class TableCreateForm(forms.ModelForm):
    side_bets = forms.MultipleChoiceField(
        choices=[(bet, bet.replace("_", " ").capitalize()) for bet in game_rules.SIDE_BETS],
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )

    class Meta:
        model = Table
        fields = ("code", *RULE_FIELDS)

    def _post_clean(self) -> None:
        super()._post_clean()
        try:
            self.instance.game_rules()
        except ValueError as error:
            self.add_error(None, f"These rules do not make a game: {error}")


class TableRulesForm(TableCreateForm):
    """The rules of an existing table; saved through services.table_rules_update with the reason."""

    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text=f"{REASON_HELP} {RULES_TAKE_EFFECT}",
    )

    class Meta(TableCreateForm.Meta):
        fields = RULE_FIELDS


class LimitSetForm(forms.ModelForm):
    """A table's limits in one currency; saved through ``tables.limit_sets`` with the reason."""

    max_differential = AmountField(**POSITIVE_AMOUNT)
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}), help_text=f"{REASON_HELP} {RULES_TAKE_EFFECT}"
    )

    class Meta:
        model = LimitSet
        fields = ("table", "currency", "max_differential")
        help_texts = {"currency": "ISO 4217, two decimal places (EUR, USD, GBP, ...): players bet in it at this table"}


class BetLimitForm(forms.ModelForm):
    minimum = AmountField(**POSITIVE_AMOUNT)
    maximum = AmountField(**POSITIVE_AMOUNT)
    table_maximum = AmountField(required=False, help_text="for the whole table", **POSITIVE_AMOUNT)

    class Meta:
        model = BetLimit
        fields = ("minimum", "maximum", "table_maximum")

    def clean(self) -> dict:
        cleaned = super().clean()
        low, high = cleaned.get("minimum"), cleaned.get("maximum")
        if low is not None and high is not None and high < low:
            self.add_error("maximum", f"The maximum {high} is below the minimum {low}.")
        return cleaned


class LimitMarkerGrantForm(forms.ModelForm):
    player = forms.ModelChoiceField(
        queryset=get_user_model()._default_manager.filter(is_active=True, is_staff=False),
    )
    bet_types = forms.MultipleChoiceField(
        choices=BET_TYPE_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        initial=list(MARKER_BET_TYPES_DEFAULT),
        help_text="The marker's limits apply to these bets; the player's other bets follow the table's limits.",
    )
    minimum = AmountField(**POSITIVE_AMOUNT)
    maximum = AmountField(**POSITIVE_AMOUNT)
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2, "cols": 60}), help_text=REASON_HELP)

    class Meta:
        model = PersonalLimitMarker
        fields = (
            "table",
            "player",
            "currency",
            "bet_types",
            "minimum",
            "maximum",
            "valid_from",
            "valid_until",
            "reason",
        )
        help_texts = {
            "currency": "One of the table's currencies (it has limits in it): the marker applies to bets in it only.",
            "valid_from": "Empty: from now.",
            "valid_until": "Empty: until revoked.",
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if "valid_from" in self.fields:  # not on the read-only page of a granted marker
            self.fields["valid_from"].required = False

    def clean(self) -> dict:
        cleaned = super().clean()
        low, high = cleaned.get("minimum"), cleaned.get("maximum")
        if low is not None and high is not None and high < low:
            self.add_error("maximum", f"The maximum {high} is below the minimum {low}.")
        start, end = cleaned.get("valid_from"), cleaned.get("valid_until")
        if start and end and end <= start:
            self.add_error("valid_until", "A marker must end after it starts.")
        return cleaned


class PitForm(forms.ModelForm):
    """A pit, its tables and its pit bosses; saved through ``tables.pits`` with the reason."""

    tables = forms.ModelMultipleChoiceField(
        queryset=Table.objects.order_by("code"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="A table ticked here leaves the pit it is in; one left unticked leaves this pit (then in none).",
    )
    bosses = forms.ModelMultipleChoiceField(
        label="Pit bosses",
        queryset=get_user_model()._default_manager.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Staff with the pit boss's permissions: each sees this pit's tables on the pit screen.",
    )
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2, "cols": 60}), help_text=REASON_HELP)

    class Meta:
        model = Pit
        fields = ("code", "name", "tables", "bosses", "reason")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if "bosses" in self.fields:
            users = get_user_model()._default_manager.with_perm(
                "tables.operate_table", include_superusers=False, backend=settings.PERMISSION_BACKEND
            )
            self.fields["bosses"].queryset = users.filter(is_staff=True).order_by(get_user_model().USERNAME_FIELD)
        if "tables" in self.fields and self.instance.pk is not None:
            self.fields["tables"].initial = list(self.instance.tables.values_list("pk", flat=True))


# --- Dealer console ------------------------------------------------------------------------


class ShoeCutForm(forms.Form):
    """The cut (seed 000 §2.1.3) and the burn card of a shuffled physical shoe."""

    cut_cards = forms.IntegerField(
        label="Cut: cards from the top",
        min_value=1,
        max_value=416,
        help_text="Where the cut card went in, counted from the top (at least half a deck from either end).",
    )
    cut_by_seat = forms.IntegerField(
        label="Cut by the patron at seat",
        min_value=1,
        max_value=10,
        required=False,
        help_text="Empty: the dealer cut.",
    )
    burn_card = forms.CharField(
        label="Burn card shown",
        max_length=2,
        required=False,
        help_text="The first card, shown face up (e.g. 7H): that many cards are burned, ten for a 10 or a face card.",
    )


class ShoeStartForm(ShoeCutForm):
    """A physical shoe's shuffle record (seed 000 §2.1.1-§2.1.2), then its cut and burn."""

    field_order = (
        "shuffle_method",
        "seal_number",
        "seal_intact",
        "shuffled_by",
        "decks_complete",
        "no_marks",
        "no_damage",
        "cctv_reference",
    )
    shuffle_method = forms.ChoiceField(
        choices=[(m.value, m.label) for m in Shoe.ShuffleMethod if m != Shoe.ShuffleMethod.RNG],
        initial=Shoe.ShuffleMethod.TABLE,
    )
    seal_number = forms.CharField(max_length=40, required=False, help_text="Required for a sealed preliminary shuffle.")
    seal_intact = forms.BooleanField(
        label="The seal arrived undamaged", required=False, help_text="Required for a sealed preliminary shuffle."
    )
    shuffled_by = forms.CharField(
        label="Shuffled by",
        max_length=80,
        required=False,
        help_text="Required for a sealed preliminary shuffle: who shuffled it in the preparation zone.",
    )
    decks_complete = forms.BooleanField(label="Every deck complete")
    no_marks = forms.BooleanField(label="No marked card")
    no_damage = forms.BooleanField(label="No damaged card")
    cctv_reference = forms.CharField(
        label="CCTV reference",
        max_length=60,
        required=False,
        help_text="The recording of the shuffle: required for a preliminary shuffle.",
    )


class CoupStepForm(forms.Form):
    """Names the coup the page showed, so a stale page or a double submit cannot act on another coup."""

    round_id = forms.CharField(widget=forms.HiddenInput)


class CardForm(CoupStepForm):
    card = forms.CharField(
        max_length=2,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "off", "size": 3}),
        help_text="Rank (A 2-9 T J Q K) and suit (S H D C), e.g. QS",
    )
    hand = forms.ChoiceField(label="Dealt to", choices=HAND_CHOICES, widget=forms.RadioSelect)
