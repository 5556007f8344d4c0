"""The players' pages: the lobby and the live table page, and the health check. The table page is drawn
once; everything live comes over the table's WebSocket (static/js/table.js) and bets go through the JSON
endpoints of casino/players/api.py."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_GET

from casino.players.chat import CHAT_MAX_LENGTH
from casino.players.launch import launched_seamless_player
from casino.players.lobby import lobby_cards
from casino.players.rng import rng_table_page
from kernel.health import health_answer
from kernel.metrics import metrics_allowed, metrics_response
from kernel.security import csp_sources_add, url_origin
from partners.seamless import seamless_balance
from partners.selectors.accounts import player_currency
from tables.models import Table
from tables.selectors import player_display_name, table_chips
from wagering.selectors import player_personal_limits, wallet_balance


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The lobby: every table, open ones first, with its main limits in the player's currency (or that it takes
    no bets in it); static/js/lobby.js brings each open table's card to life."""
    currency = player_currency(user=request.user)
    return render(request, "lobby.html", {"cards": lobby_cards(currency=currency), "currency": currency})


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus's scrape (``kernel.metrics``): staff or the metrics token only; 404 to anyone else."""
    if not metrics_allowed(request):
        raise Http404
    return metrics_response()


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """No icon, said without a 404 (pages Django draws, as the admin's, do not carry our empty icon link)."""
    return HttpResponse(status=204)


def healthz(request: HttpRequest) -> JsonResponse:
    """``/healthz`` through Django's stack (the test client, a server other than ``kernel.http``, which answers it
    before any middleware): the same answer (``kernel.health.health_answer``)."""
    status, body = health_answer(host=f"{request.META.get('SERVER_NAME')}:{request.META.get('SERVER_PORT')}")
    return JsonResponse(body, status=status)


def player_balance(request: HttpRequest) -> Decimal | None:
    """Our wallet's balance, or for a launched player whose partner holds the money, the partner's (None:
    its wallet did not answer in time; the page asks again once live)."""
    player = launched_seamless_player(request)
    return wallet_balance(user=request.user) if player is None else seamless_balance(player=player)


@require_GET
@login_required
def table_page(request: HttpRequest, code: str) -> HttpResponse:
    table = get_object_or_404(Table, code=code)
    currency = player_currency(user=request.user)
    if table.dealt_on_demand:
        return rng_table_page(request, table, currency)
    context = {
        "table": table,
        "chips": table_chips(table=table, currency=currency),
        "balance": player_balance(request),
        "currency": currency,
        # The player's own personal limit markers (seed 000 glossary): this page only, never the table's events.
        "personal_limits": player_personal_limits(
            table_id=table.pk, user=request.user, currency=currency, at=timezone.now()
        ),
        # The betting timer counts down to the server's deadline: the page learns the server's clock.
        "server_now": timezone.now().isoformat(timespec="milliseconds"),
        "chat_max_length": CHAT_MAX_LENGTH,
        "squeeze_turn_ms": round(settings.SQUEEZE_TURN_SECONDS * 1000),
        "display_name": player_display_name(user=request.user),  # as the table's events name this player
    }
    stream = table.video_url if table.dealing_mode == Table.DealingMode.DEALER else ""
    context["video_origin"] = url_origin(request.build_absolute_uri(stream)) if stream else ""
    response = render(request, "table.html", context)
    if stream:
        # The dealer's video: <video> plays hls.js's MediaSource (a blob: URL); hls.js fetches the stream from its
        # origin, or from this page's ('self' already) when it is a path here (the demo's test stream).
        origin = [] if stream.startswith("/") else [context["video_origin"]]
        csp_sources_add(response, {"media-src": ["blob:", *origin], "connect-src": origin})
    return response
