"""The pit screen: every table of the pit boss's pits at a glance (a floor manager's: every pit), and the tables in
no pit, refreshed every few seconds: its state, dealer, shoe and coup, the seated patrons, the shift's drop and win
so far, and alerts (a coup held for the pit, a void request waiting for its second pair of eyes, a differential
close to its limit or past it by a pit override), with links to where the pit boss acts."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from baccarat.coup import BANKER, PLAYER
from casino.sign_in.two_factor import auto_refresh_not_staff_activity
from tables.models import Coup, Table
from tables.selectors import (
    coup_rules,
    coup_void_request_pending,
    pits_supervised,
    table_current_coup,
    table_dealer,
    table_seated,
    table_shoe_in_play,
)
from tables.voids import void_request_text
from wagering.chip_reports import shift_report, table_open_shifts
from wagering.selectors import coup_online_bettor_counts, coup_stake_totals

# The share of the maximum differential from which the screen warns (seed 000 §6.1).
DIFFERENTIAL_WARNING = Decimal("0.9")


@auto_refresh_not_staff_activity
@require_GET
def pit_screen(request: HttpRequest) -> HttpResponse:
    """Pit bosses only (tables.operate_table): anonymous visitors go to the staff sign-in, others get 403. Each
    sees the tables of the pits they supervise, by pit, then those in no pit (neither: the page says so)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path(), login_url=reverse("admin:login"))
    if not (request.user.is_staff and request.user.has_perm("tables.operate_table")):
        raise PermissionDenied
    groups = pits_supervised(user=request.user)
    # The coup each row shows (the live one, else the latest) and its online bettors, settled or not.
    coups = {table.pk: table_current_coup(table=table) for group in groups for table in group.tables}
    bettors = coup_online_bettor_counts(coup_ids=[coup.pk for coup in coups.values() if coup is not None])
    pits = [
        {"pit": group.pit, "rows": [_table_row(table, coups[table.pk], bettors) for table in group.tables]}
        for group in groups
    ]
    alerts = [alert for pit in pits for row in pit["rows"] for alert in row["alerts"]]
    return render(request, "console/pit.html", {"pits": pits, "alerts": alerts})


def _table_row(table: Table, coup: Coup | None, bettors: dict[int, int]) -> dict:
    alerts = []
    if coup is not None and coup.state == Coup.State.HELD:
        alerts.append(f"{table.code}: coup {coup.round_id} held for the pit: {coup.held_reason}")
        void_request = coup_void_request_pending(coup=coup)
        if void_request is not None:
            alerts.append(f"{table.code}: coup {coup.round_id}: {void_request_text(void_request)}")
    differentials = _differentials(coup) if coup is not None and coup.state in Coup.LIVE_STATES else []
    for each in differentials:
        if each["past"]:
            alerts.append(
                f"{table.code}: differential {each['used']} past its limit {each['limit']} {each['currency']} on "
                f"{coup.round_id} (pit override)"
            )
        elif each["near"]:
            alerts.append(
                f"{table.code}: differential {each['used']} of {each['limit']} {each['currency']} on {coup.round_id}"
            )
    return {
        "table": table,
        "dealer": table_dealer(table=table),
        "shoe": table_shoe_in_play(table=table),
        "coup": coup,
        "bettors": bettors.get(coup.pk, 0) if coup is not None else 0,
        "seated": table_seated(table=table),
        "shifts": [shift_report(opening=opening) for opening in table_open_shifts(table_id=table.pk)],
        "differentials": differentials,
        "alerts": alerts,
    }


def _differentials(coup: Coup) -> list[dict]:
    """How much of the maximum differential the coup's Player and Banker stakes use, per currency. Only a pit
    override (``differential_overridden``, seated chips) takes it past the limit: every other bet is refused."""
    rules = coup_rules(coup=coup)
    rows = []
    for currency, totals in coup_stake_totals(coup=coup).items():
        limits = rules.currencies.get(currency)
        if limits is None:
            continue
        used = abs(totals.get(BANKER, Decimal(0)) - totals.get(PLAYER, Decimal(0)))
        limit = limits.max_differential
        rows.append(
            {
                "currency": currency,
                "used": used,
                "limit": limit,
                "near": used >= limit * DIFFERENTIAL_WARNING,
                "past": used > limit,
            }
        )
    return rows
