"""The players' live table page. The page is drawn once; everything live comes over the table's
WebSocket (static/js/table.js) and bets go through the JSON endpoints of wagering/views.py."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_GET

from roadmaps.consumers import CHAT_MAX_LENGTH
from tables.models import Table
from tables.selectors import player_display_name
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
