"""The players' live table page. The page is drawn once; everything live comes over the table's
WebSocket (static/js/table.js) and bets go through the JSON endpoints of wagering/views.py."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from roadmaps.consumers import CHAT_MAX_LENGTH
from tables.models import PlayerProfile, Table
from tables.players import NICKNAME_MAX_LENGTH
from tables.selectors import player_display_name
from tables.services import TableError, player_nickname_set
from wagering.selectors import wallet_balance

CHIPS = (1, 5, 10, 25, 100)  # seed 004


@require_GET
@login_required
def table_page(request: HttpRequest, code: str) -> HttpResponse:
    table = get_object_or_404(Table, code=code)
    context = {
        "table": table,
        "chips": CHIPS,
        "balance": wallet_balance(user=request.user),
        # The betting timer counts down to the server's deadline: the page learns the server's clock.
        "server_now": timezone.now().isoformat(timespec="milliseconds"),
        "chat_max_length": CHAT_MAX_LENGTH,
        "display_name": player_display_name(user=request.user),  # as the table's events name this player
    }
    return render(request, "table.html", context)


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
