"""The player's account page: the nickname other players see (``tables.players``)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from tables.errors import TableError
from tables.models import PlayerProfile
from tables.players import NICKNAME_MAX_LENGTH
from tables.selectors import player_display_name
from tables.services import player_nickname_set


class NicknameForm(forms.Form):
    nickname = forms.CharField(
        max_length=NICKNAME_MAX_LENGTH,
        required=False,
        strip=False,  # the service strips and validates: one set of rules
        help_text="What other players see you as. Leave it empty to appear masked.",
    )


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
            form.add_error("nickname", str(error))
        else:
            messages.success(request, f"Other players now see you as {player_display_name(user=request.user)}.")
            return redirect("account")
    if request.method == "GET":
        profile = PlayerProfile.objects.filter(user=request.user).first()
        form = NicknameForm(initial={"nickname": profile.nickname if profile else ""})
    context = {"form": form, "display_name": player_display_name(user=request.user)}
    return render(request, "account.html", context, status=400 if form.errors else 200)
