"""The player's account page: the nickname other players see (``tables.players``)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods

from tables.errors import TableError
from tables.models import PlayerProfile
from tables.players import NICKNAME_MAX_LENGTH, NICKNAME_MIN_LENGTH
from tables.selectors import player_display_name
from tables.services import player_nickname_set


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


@require_http_methods(["GET", "POST"])
@login_required
def account_page(request: HttpRequest) -> HttpResponse:
    """The player's account: the nickname other players see them by (``tables.players``)."""
    if request.user.is_staff:
        raise PermissionDenied("staff accounts do not play")
    form = NicknameForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            player_nickname_set(user=request.user, nickname=form.cleaned_data["nickname"])
        except TableError as error:
            form.add_error("nickname", nickname_problem_said(str(error)))
        else:
            name = player_display_name(user=request.user)
            messages.success(request, gettext("Other players now see you as %(name)s.") % {"name": name})
            return redirect("account")
    if request.method == "GET":
        profile = PlayerProfile.objects.filter(user=request.user).first()
        form = NicknameForm(initial={"nickname": profile.nickname if profile else ""})
    context = {"form": form, "display_name": player_display_name(user=request.user)}
    return render(request, "account.html", context, status=400 if form.errors else 200)
