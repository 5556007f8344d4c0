"""The dealer console's forms beyond the coup's steps (``tables.forms``): a patron seated, moved or unseated,
their chips and buy-ins, the tray, and who shows a hand."""

from __future__ import annotations

from django import forms

from kernel.money import AmountField
from tables.forms import POSITIVE_AMOUNT, CoupStepForm
from tables.models import BET_TYPE_CHOICES, HAND_CHOICES, Seat, SeatSession

SEAT_NUMBERS = [(number, f"Seat {number}") for number in range(1, Seat.SEATS_PER_TABLE + 1)]


class PatronSeatForm(forms.Form):
    seat = forms.TypedChoiceField(choices=SEAT_NUMBERS, coerce=int)
    player = forms.CharField(
        label="Player's username", max_length=150, required=False, help_text="From the player's card; or a guest:"
    )
    guest_name = forms.CharField(
        max_length=SeatSession._meta.get_field("guest_name").max_length,
        required=False,
        help_text='Shown to staff only; players see "Seat 4 guest".',
    )
    currency = forms.CharField(max_length=3, required=False, help_text="The chips' currency; empty: the table's first.")

    def clean(self) -> dict:
        cleaned = super().clean()
        if bool(cleaned.get("player", "").strip()) == bool(cleaned.get("guest_name", "").strip()):
            raise forms.ValidationError("Give the player's username or a guest's name (one of the two).")
        return cleaned


class SeatSessionForm(forms.Form):
    """Names the seated patron a step acts on (one of this table's: the step checks)."""

    session = forms.IntegerField(widget=forms.HiddenInput, min_value=1)


class PatronMoveForm(SeatSessionForm):
    seat = forms.TypedChoiceField(label="Move to", choices=SEAT_NUMBERS, coerce=int)


class SeatBetForm(CoupStepForm, SeatSessionForm):
    bet_type = forms.ChoiceField(label="Box", choices=BET_TYPE_CHOICES)
    stake = AmountField(label="Chips", **POSITIVE_AMOUNT)

    def __init__(self, *args, offered: list[str] | None = None, **kwargs) -> None:
        """``offered``: the coup's bet types, the only boxes shown (a POST is checked by the placement)."""
        super().__init__(*args, **kwargs)
        if offered is not None:
            self.fields["bet_type"].choices = [(value, label) for value, label in BET_TYPE_CHOICES if value in offered]


class BuyInForm(SeatSessionForm):
    amount = AmountField(label="Cash for chips", **POSITIVE_AMOUNT)


class TrayForm(forms.Form):
    """A fill, a credit or a count of the tray in one of the table's currencies (the service checks it)."""

    currency = forms.CharField(max_length=3, widget=forms.Select)
    amount = AmountField(**POSITIVE_AMOUNT)

    def __init__(self, *args, currencies: list[str] | None = None, **kwargs) -> None:
        """``currencies``: the table's, offered in the form's list."""
        super().__init__(*args, **kwargs)
        self.fields["currency"].widget.choices = [(currency, currency) for currency in currencies or []]


class HandForm(CoupStepForm):
    hand = forms.ChoiceField(choices=HAND_CHOICES, widget=forms.HiddenInput)


class ShoeHolderForm(forms.Form):
    """The seat the console showed holding the shoe (the service refuses it once another holds it)."""

    seat = forms.TypedChoiceField(choices=SEAT_NUMBERS, coerce=int, widget=forms.HiddenInput)
