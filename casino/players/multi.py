"""The multi-table view (``/multi/?tables=pb1,live3``): up to four tables on one page, each a tile with its video or
dealing scene, timer, compact board, chips and result, over one socket (``casino.players.multi_socket``); the
player's bets go through the same intake as the table page's (docs/ui.md, Several tables).

The tables are the live ones a player bets on in a betting window. A closed one is a tile saying so (its socket
follows it: it comes back when it reopens). An unknown table and a table dealt on demand (one player's own shoe, no
window to share a screen with) are set aside, the page saying which and why above the others; with nothing left to
show, or more than four asked for, the page is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from casino.players.errors import TablesRefused
from casino.players.views import player_balance
from kernel.errors import ErrorCode
from kernel.security import csp_sources_add, url_origin
from partners.selectors.accounts import player_currency
from tables.models import Table
from tables.selectors import table_chips

MAX_TABLES = 4


def tables_asked(values: list[str]) -> list[str]:
    """The table codes of ``tables=a,b`` (or ``tables=a&tables=b``), in order, each once."""
    codes = (code.strip() for value in values for code in value.split(","))
    return list(dict.fromkeys(code for code in codes if code))


def scope_tables_asked(scope: dict) -> list[str]:
    """The table codes a socket's query string asks for (``/ws/multi/?tables=a,b``)."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return tables_asked(query.get("tables", []))


@dataclass(frozen=True)
class MultiChoice:
    tables: list[Table]  # those shown, in the order asked: open or closed, each with a betting window
    set_aside: list[TablesRefused]  # those that cannot be, each saying why (``details["table"]``)


def multi_choice(*, codes: list[str]) -> MultiChoice:
    """The tables of ``codes`` that can be shown and those set aside; ``TablesRefused`` for none or more than four
    asked, or none to show (the first set aside's reason)."""
    if not codes:
        raise TablesRefused("choose one to four tables", code=ErrorCode.BAD_REQUEST)
    if len(codes) > MAX_TABLES:
        raise TablesRefused(
            f"at most {MAX_TABLES} tables at once, not {len(codes)}",
            code=ErrorCode.TOO_MANY_TABLES,
            details={"maximum": str(MAX_TABLES)},
        )
    found = Table.objects.in_bulk(codes, field_name="code")
    tables, set_aside = [], []
    for code in codes:
        table = found.get(code)
        if table is None:
            name = code[:40]
            set_aside.append(
                TablesRefused(f"there is no table {name!r}", code=ErrorCode.NO_SUCH_TABLE, details={"table": name})
            )
        elif table.dealt_on_demand:
            set_aside.append(
                TablesRefused(
                    f"{table.name} is dealt on demand: play it on its own page",
                    code=ErrorCode.DEALT_ON_DEMAND,
                    details={"table": table.name},
                )
            )
        else:
            tables.append(table)
    if not tables:
        raise set_aside[0]
    return MultiChoice(tables=tables, set_aside=set_aside)


def refusal_text(error: TablesRefused) -> str:
    """The refusal as the page says it, in the player's language."""
    table = error.details.get("table", "")
    return {
        ErrorCode.TOO_MANY_TABLES: _("Choose at most four tables."),
        ErrorCode.NO_SUCH_TABLE: _("There is no table “%(table)s”.") % {"table": table},
        ErrorCode.DEALT_ON_DEMAND: _("%(table)s deals on demand: play it on its own page.") % {"table": table},
    }.get(error.code, _("Choose one to four tables in the lobby."))


@require_GET
@login_required
def multi_page(request: HttpRequest) -> HttpResponse:
    try:
        choice = multi_choice(codes=tables_asked(request.GET.getlist("tables")))
    except TablesRefused as error:
        return render(request, "multi.html", {"refusal": refusal_text(error)}, status=error.http_status)
    tables = choice.tables
    currency = player_currency(user=request.user)
    streams = {table.code: table.video_url for table in tables if table.dealing_mode == Table.DealingMode.DEALER}
    origins = {code: url_origin(request.build_absolute_uri(url)) for code, url in streams.items() if url}
    tiles = [
        {
            "table": table,
            "chips": table_chips(table=table, currency=currency),
            "video_url": streams.get(table.code, ""),
            "video_origin": origins.get(table.code, ""),
        }
        for table in tables
    ]
    context = {
        "tiles": tiles,
        "set_aside": [refusal_text(error) for error in choice.set_aside],
        "codes": ",".join(table.code for table in tables),
        "currency": currency,
        "balance": player_balance(request),  # as the table page's: ours, or the partner's wallet's
        "server_now": timezone.now().isoformat(timespec="milliseconds"),
        "squeeze_turn_ms": round(settings.SQUEEZE_TURN_SECONDS * 1000),
    }
    response = render(request, "multi.html", context)
    # The tables' videos, as on the table page (docs/live.md, Live video): each stream's origin, none for a path here.
    elsewhere = sorted({origins[code] for code, url in streams.items() if url and not url.startswith("/")})
    if origins:
        csp_sources_add(response, {"media-src": ["blob:", *elsewhere], "connect-src": elsewhere})
    return response
