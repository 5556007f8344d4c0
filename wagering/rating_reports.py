"""The ratings report: seated patrons' sessions (``chip_reports.seat_session_ratings``) added up per known
patron and per table and day, in each currency apart. A session belongs to the UTC day it started, and a
total is the sum of its sessions' rated figures, so it agrees with the Seat sessions list to the cent."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from tables.models import SeatSession, Table
from wagering.chip_reports import Rating, seat_session_ratings
from wagering.models import ZERO, money


@dataclass(frozen=True)
class RatingTotals:
    sessions: int
    minutes: int
    buy_in: Decimal
    hands: int
    staked: Decimal
    theoretical_win: Decimal
    actual_win: Decimal

    @property
    def average_bet(self) -> Decimal:
        """Per hand over every session: each session's average weighted by its hands."""
        return money(self.staked / self.hands) if self.hands else ZERO


@dataclass(frozen=True)
class PatronRatings:
    player_id: int
    patron: str
    currency: str
    totals: RatingTotals


@dataclass(frozen=True)
class TableDayRatings:
    table: Table
    day: date
    currency: str
    players: int  # known players, each counted once
    guests: int  # guest sessions: a guest is not known from one session to the next
    totals: RatingTotals


@dataclass(frozen=True)
class RatingsReport:
    patrons: list[PatronRatings]  # by name
    table_days: list[TableDayRatings]  # latest day first, then by table


def ratings_report(*, since: date, until: date, table_id: int | None = None) -> RatingsReport:
    """The sessions started between the two UTC days (inclusive), at one table or all, rated once (a fixed
    number of queries) and added up per known patron and per table and day."""
    sessions = SeatSession.objects.filter(started_at__date__gte=since, started_at__date__lte=until)
    if table_id is not None:
        sessions = sessions.filter(table_id=table_id)
    sessions = sessions.select_related("table", "seat", "player").order_by("pk")
    ratings = list(seat_session_ratings(sessions=sessions).values())
    return RatingsReport(patrons=_by_patron(ratings), table_days=_by_table_day(ratings))


def _by_patron(ratings: Iterable[Rating]) -> list[PatronRatings]:
    groups: dict[tuple[int, str], list[Rating]] = defaultdict(list)
    for rating in ratings:
        if rating.session.player_id is not None:
            groups[rating.session.player_id, rating.session.currency].append(rating)
    rows = [
        PatronRatings(
            player_id=player_id, patron=ratings[0].session.patron_name, currency=currency, totals=_totals(ratings)
        )
        for (player_id, currency), ratings in groups.items()
    ]
    return sorted(rows, key=lambda row: (row.patron, row.currency))


def _by_table_day(ratings: Iterable[Rating]) -> list[TableDayRatings]:
    groups: dict[tuple[int, date, str], list[Rating]] = defaultdict(list)
    for rating in ratings:
        session = rating.session
        groups[session.table_id, session.started_at.date(), session.currency].append(rating)
    rows = [
        TableDayRatings(
            table=ratings[0].session.table,
            day=day,
            currency=currency,
            players=len({rating.session.player_id for rating in ratings if rating.session.player_id is not None}),
            guests=sum(1 for rating in ratings if rating.session.player_id is None),
            totals=_totals(ratings),
        )
        for (_, day, currency), ratings in groups.items()
    ]
    return sorted(rows, key=lambda row: (-row.day.toordinal(), row.table.code, row.currency))


def _totals(ratings: list[Rating]) -> RatingTotals:
    return RatingTotals(
        sessions=len(ratings),
        minutes=sum(rating.minutes for rating in ratings),
        buy_in=money(sum((rating.buy_in for rating in ratings), ZERO)),
        hands=sum(rating.hands for rating in ratings),
        staked=money(sum((rating.staked for rating in ratings), ZERO)),
        theoretical_win=money(sum((rating.theoretical_win for rating in ratings), ZERO)),
        actual_win=money(sum((rating.actual_win for rating in ratings), ZERO)),
    )
