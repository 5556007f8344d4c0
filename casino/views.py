from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from baccarat.rules import MAIN_BETS
from tables.models import Table


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
