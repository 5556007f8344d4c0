"""The players' pages: the lobby and the live table page, and the health check. The table page is drawn
once; everything live comes over the table's WebSocket (static/js/table.js) and bets go through the JSON
endpoints of wagering/views.py."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_GET

from baccarat.rules import MAIN_BETS
from roadmaps.consumers import CHAT_MAX_LENGTH
from tables.models import Table
from tables.selectors import player_display_name
from wagering.selectors import wallet_balance

CHIPS = (1, 5, 10, 25, 100)  # seed 004


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The lobby: every open table with its main limits; static/js/lobby.js brings each card to life."""
    tables = Table.objects.filter(is_open=True).prefetch_related("limits")
    cards = [
        {"table": table, "limits": [limit for limit in table.limits.all() if limit.bet_type in MAIN_BETS]}
        for table in tables
    ]
    return render(request, "lobby.html", {"cards": cards})


def healthz(request: HttpRequest) -> JsonResponse:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok", "database": connection.vendor})


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
