"""Seated play in the admin, read-only: the patrons' sessions with their ratings (filter by table, day or
patron for the reports per patron and per table and day), the tray's chip movements and counts."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from casino.admin_base import ReadOnlyAdmin
from tables.models import SeatSession
from wagering.chip_reports import Rating, seat_session_ratings
from wagering.models import ChipMovement, TrayCount

RATING_COLUMNS = ("minutes", "buy_in", "hands", "average_bet", "staked", "theoretical_win", "actual_win")


@admin.register(SeatSession)
class SeatSessionAdmin(ReadOnlyAdmin):
    list_display = ("started_at", "table", "seat_number", "patron", "ended_at", *RATING_COLUMNS)
    list_filter = ("table", ("player", admin.EmptyFieldListFilter))
    list_select_related = ("table", "seat", "player")
    date_hierarchy = "started_at"
    search_fields = ("player__username", "guest_name")

    def get_changelist_instance(self, request: HttpRequest):
        """The page's ratings, computed together (a fixed number of queries for the page)."""
        changelist = super().get_changelist_instance(request)
        ratings = seat_session_ratings(sessions=changelist.result_list)
        for session in changelist.result_list:
            session.rating = ratings[session.pk]
        return changelist

    @admin.display(description="seat")
    def seat_number(self, session: SeatSession) -> int:
        return session.seat.number

    @admin.display(description="patron")
    def patron(self, session: SeatSession) -> str:
        return session.patron_name


def _rating_column(name: str):
    def column(self, session: SeatSession) -> object:
        rating: Rating = session.rating
        return getattr(rating, name)

    column.short_description = name.replace("_", " ")
    column.__name__ = name
    return column


for _name in RATING_COLUMNS:
    setattr(SeatSessionAdmin, _name, _rating_column(_name))


@admin.register(ChipMovement)
class ChipMovementAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "table", "kind", "amount", "currency", "seat_session", "actor", "transaction")
    list_filter = ("table", "kind", "currency")
    list_select_related = ("table", "seat_session__seat", "seat_session__player", "actor", "transaction")
    date_hierarchy = "created_at"


@admin.register(TrayCount)
class TrayCountAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "table", "currency", "kind", "counted", "ledger_balance", "opening", "actor")
    list_filter = ("table", "currency", "kind")
    list_select_related = ("table", "actor", "opening")
    date_hierarchy = "created_at"
