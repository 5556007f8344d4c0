"""The account page's forms (``casino.players.account``): the nickname other players see (``tables.players``) and
the player's protection (``wagering.protection.services``), with their refusals said in the page's language (the
services say them in English, as the partner API answers them)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from kernel.errors import ErrorCode, PuntoError
from kernel.money import CENT, AmountField
from tables.players import NICKNAME_MAX_LENGTH, NICKNAME_MIN_LENGTH
from wagering.protection.services import MAX_SESSION_MINUTES, REALITY_CHECK_CHOICES

# The limits' groups, each a form of its own on the page: its fields are PlayerProtection's.
LIMIT_GROUPS = {
    "deposit": ("deposit_day", "deposit_week", "deposit_month"),
    "loss": ("loss_day", "loss_week", "loss_month"),
    "session": ("session_minutes",),
}
LIMIT_TITLES = {
    "deposit": gettext_lazy("Deposit limits"),
    "loss": gettext_lazy("Loss limits"),
    "session": gettext_lazy("Session time limit"),
}
LIMIT_LABELS = {
    "deposit_day": gettext_lazy("Daily deposit limit"),
    "deposit_week": gettext_lazy("Weekly deposit limit"),
    "deposit_month": gettext_lazy("Monthly deposit limit"),
    "loss_day": gettext_lazy("Daily loss limit"),
    "loss_week": gettext_lazy("Weekly loss limit"),
    "loss_month": gettext_lazy("Monthly loss limit"),
    "session_minutes": gettext_lazy("Session time limit"),
}
TIME_OUT_CHOICES = (
    ("24h", pgettext_lazy("time-out", "24 hours")),
    ("7d", pgettext_lazy("time-out", "7 days")),
    ("6w", pgettext_lazy("time-out", "6 weeks")),
)
SELF_EXCLUSION_CHOICES = (
    ("6m", pgettext_lazy("self-exclusion", "6 months")),
    ("1y", pgettext_lazy("self-exclusion", "1 year")),
    ("5y", pgettext_lazy("self-exclusion", "5 years")),
)
BREAK_CHOICES = {"time_out": TIME_OUT_CHOICES, "self_exclusion": SELF_EXCLUSION_CHOICES}
AMOUNT_PROBLEM = gettext_lazy(
    "Write a limit as a positive amount with at most 2 decimals, e.g. 50.00, or leave it empty."
)


def minutes_problem() -> str:
    return gettext("A session time limit is 1 to %(max)s minutes, or leave it empty.") % {"max": MAX_SESSION_MINUTES}


class NicknameForm(forms.Form):
    nickname = forms.CharField(
        max_length=NICKNAME_MAX_LENGTH,
        required=False,
        strip=False,  # the service strips and validates: one set of rules
        help_text=gettext_lazy("What other players see you as. Leave it empty to appear masked."),
    )


def nickname_problem_said(message: str) -> str:
    """A refused nickname's reason in the page's language (``tables.players`` says it in English, as the partner
    API answers it)."""
    translated = {
        f"a nickname has {NICKNAME_MIN_LENGTH} to {NICKNAME_MAX_LENGTH} characters": gettext(
            "a nickname has %(min)s to %(max)s characters"
        )
        % {"min": NICKNAME_MIN_LENGTH, "max": NICKNAME_MAX_LENGTH},
        "a nickname is letters and digits (A-Z, 0-9), with single spaces, dots, dashes or underscores between": gettext(
            "a nickname is letters and digits (A-Z, 0-9), with single spaces, dots, dashes or underscores between"
        ),
        "a nickname cannot pass for the casino's staff (dealer, pit boss, support ...)": gettext(
            "a nickname cannot pass for the casino's staff (dealer, pit boss, support ...)"
        ),
        "a nickname cannot pass for another player or a member of staff": gettext(
            "a nickname cannot pass for another player or a member of staff"
        ),
    }
    return translated.get(message, message)


class LimitsForm(forms.Form):
    """One group of limits (``LIMIT_GROUPS``): an amount (or minutes) each, empty for none."""

    def __init__(self, group: str, *args: object, **kwargs: object) -> None:
        super().__init__(*args, prefix=group, **kwargs)
        self.group = group
        for name in LIMIT_GROUPS[group]:
            if name == "session_minutes":
                label = gettext_lazy("Minutes per session")
                field = forms.IntegerField(label=label, min_value=1, max_value=MAX_SESSION_MINUTES, required=False)
                problem = minutes_problem()
            else:
                field = AmountField(label=LIMIT_LABELS[name], min_value=CENT, required=False)
                problem = AMOUNT_PROBLEM
            field.error_messages = dict.fromkeys(field.error_messages, problem)  # one sentence, in the page's language
            self.fields[name] = field


class RealityCheckForm(forms.Form):
    minutes = forms.TypedChoiceField(
        choices=[(minutes, minutes) for minutes in REALITY_CHECK_CHOICES], coerce=int, widget=forms.RadioSelect
    )


class BreakForm(forms.Form):
    """A time-out or a self-exclusion: chosen, then confirmed (``confirmed``) on a second step."""

    kind = forms.ChoiceField(choices=[(kind, kind) for kind in BREAK_CHOICES])
    duration = forms.CharField(max_length=3)
    confirmed = forms.BooleanField(required=False)

    def clean(self) -> dict:
        cleaned = super().clean()
        durations = dict(BREAK_CHOICES.get(cleaned.get("kind"), ()))
        if cleaned.get("duration") not in durations:
            raise forms.ValidationError(gettext("Choose how long your break lasts."))
        return cleaned


def protection_problem_said(error: PuntoError) -> str:
    """A limit the service refused (the form let it through), in the page's language."""
    if error.code == ErrorCode.INVALID_LIMIT:
        return minutes_problem()
    if error.code == ErrorCode.INVALID_AMOUNT:
        return str(AMOUNT_PROBLEM)
    return gettext("That change could not be made: nothing was changed.")
