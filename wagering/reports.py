"""Game-history reports: a table's day and a shoe's stakes, win and hold, online and seated bets together,
recomputed on demand. Their stakes are not a drop: the drop is a shift's buy-ins (``chip_reports``)."""

from __future__ import annotations

from datetime import date

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, F, Q, QuerySet, Sum

from baccarat.coup import BANKER, PLAYER, TIE
from tables.models import Coup, Shoe
from wagering.models import (
    CENT,
    Bet,
    BetAdjustment,
    BetSettlement,
    ShoeReport,
    TableDayReport,
    money,
)

User = AbstractBaseUser


def table_day_report_build(*, table_id: int, day: date) -> list[TableDayReport]:
    """(Re)compute a table's stakes and win for a day (the UTC day its coups opened), one report per currency
    staked in: safe to run again."""
    coups = Coup.objects.filter(table_id=table_id, opened_at__date=day)
    return [
        TableDayReport.objects.update_or_create(
            table_id=table_id, day=day, currency=currency, defaults=_report_values(coups, currency)
        )[0]
        for currency in _currencies_staked(coups)
    ]


def shoe_report_build(*, shoe_id: int) -> list[ShoeReport]:
    """(Re)compute a shoe's stakes and win, one report per currency staked in: safe to run again."""
    coups = Coup.objects.filter(shoe_id=shoe_id)
    reports = []
    for currency in _currencies_staked(coups):
        values = _report_values(coups, currency)
        reports.append(ShoeReport.objects.update_or_create(shoe_id=shoe_id, currency=currency, defaults=values)[0])
    return reports


def _currencies_staked(coups: QuerySet[Coup]) -> list[str]:
    """The currencies the coups' bets were staked in (the house's if none was): amounts in two currencies
    are never added, so each gets a report of its own."""
    staked = Bet.objects.filter(coup__in=coups).values_list("stake_account__currency", flat=True).distinct()
    return sorted(set(staked)) or [settings.HOUSE_CURRENCY]


def day_reports_build(*, day: date) -> int:
    """The reports of every table that played on the day, and of every shoe used that day."""
    coups = Coup.objects.filter(opened_at__date=day)
    table_ids = set(coups.values_list("table_id", flat=True))
    shoe_ids = set(Shoe.objects.filter(coups__in=coups).values_list("pk", flat=True))
    for table_id in sorted(table_ids):
        table_day_report_build(table_id=table_id, day=day)
    for shoe_id in sorted(shoe_ids):
        shoe_report_build(shoe_id=shoe_id)
    return len(table_ids) + len(shoe_ids)


def _players(settled: QuerySet[BetSettlement]) -> int:
    """Who bet: each player once, online or seated, and each guest's seat session (a guest is not known from
    one session to the next)."""
    bettors = (
        settled.order_by()
        .values_list("bet__user_id", "bet__seat_session__player_id", "bet__seat_session_id")
        .distinct()
    )
    players, guest_sessions = set(), set()
    for user_id, seated_player_id, session_id in bettors:
        if user_id or seated_player_id:
            players.add(user_id or seated_player_id)
        else:
            guest_sessions.add(session_id)
    return len(players) + len(guest_sessions)


def _report_values(coups: QuerySet[Coup], currency: str) -> dict:
    played = Q(state__in=(Coup.State.RESOLVED, Coup.State.SETTLED))
    counts = coups.aggregate(
        coups=Count("pk", filter=played),
        void_coups=Count("pk", filter=Q(state=Coup.State.VOID)),
        banker_wins=Count("pk", filter=played & Q(winner=BANKER)),
        player_wins=Count("pk", filter=played & Q(winner=PLAYER)),
        ties=Count("pk", filter=played & Q(winner=TIE)),
    )
    settled = BetSettlement.objects.filter(bet__coup__in=coups, bet__stake_account__currency=currency).exclude(
        outcome=BetSettlement.Outcome.REFUND
    )
    paid = settled.aggregate(bets=Count("pk"), staked=Sum("bet__stake"), returned=Sum("returned"))
    corrected = BetAdjustment.objects.filter(bet__coup__in=coups, bet__stake_account__currency=currency).aggregate(
        total=Sum(F("returned_after") - F("returned_before"))
    )
    staked, returned = money(paid["staked"]), money(paid["returned"]) + money(corrected["total"])
    house_win = staked - returned
    return {
        **counts,
        "bets": paid["bets"],
        "players": _players(settled),
        "staked": staked,
        "returned": returned,
        "house_win": house_win,
        "hold_percent": (house_win * 100 / staked).quantize(CENT) if staked else None,
    }
