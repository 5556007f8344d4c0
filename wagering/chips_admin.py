"""Seated play in the admin, read-only: the patrons' sessions with their ratings and the ratings report (per
patron, per table and day), the tray's chip movements and counts and the shifts' report. The reports are
for whoever may view the rows they add up (pit bosses, surveillance), never for a dealer."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone

from kernel.admin_base import ReadOnlyAdmin
from kernel.currencies import TWO_DECIMAL_CURRENCIES
from tables.models import SeatSession, Table
from wagering.chip_reports import Rating, seat_session_ratings, shift_openings, shift_report
from wagering.models import ChipMovement, TrayCount
from wagering.rating_reports import ratings_report
from wagering.report_csv import ratings_by_patron_csv, ratings_by_table_day_csv, shifts_csv

RATING_COLUMNS = ("minutes", "buy_in", "hands", "average_bet", "staked", "theoretical_win", "actual_win")
REPORT_DEFAULT_DAYS = 7
REPORT_MAX_DAYS = 92
SHIFTS_PER_PAGE = 25
SHIFTS_EXPORT_MAX = 500  # a few queries each (``shift_report``)
RATINGS_EXPORTS = {"patrons": ratings_by_patron_csv, "table-days": ratings_by_table_day_csv}


class ReportFilterForm(forms.Form):
    """The days (UTC, both included; the last seven by default) and the dealer table a report covers."""

    since = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="From")
    until = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="To")
    table = forms.ModelChoiceField(
        Table.objects.filter(dealing_mode=Table.DealingMode.DEALER).order_by("code"),
        required=False,
        empty_label="Every dealer table",
    )

    def clean(self) -> dict:
        data = super().clean()
        if self.has_error("since") or self.has_error("until"):
            return data
        until = data.get("until") or timezone.now().date()
        since = data.get("since") or until - timedelta(days=REPORT_DEFAULT_DAYS - 1)
        if since > until:
            raise ValidationError("The first day comes after the last.")
        if (until - since).days >= REPORT_MAX_DAYS:
            raise ValidationError(f"At most {REPORT_MAX_DAYS} days at once.")
        data.update(since=since, until=until)
        return data

    def table_id(self) -> int | None:
        return self.cleaned_data["table"].pk if self.cleaned_data["table"] else None


class ShiftFilterForm(ReportFilterForm):
    currency = forms.ChoiceField(
        choices=[("", "Every currency"), *((code, code) for code in sorted(TWO_DECIMAL_CURRENCIES))], required=False
    )


def _report_page(model_admin: admin.ModelAdmin, request: HttpRequest, title: str, template: str, **context):
    context = {**model_admin.admin_site.each_context(request), "opts": model_admin.opts, "title": title, **context}
    return TemplateResponse(request, template, context)


@admin.register(SeatSession)
class SeatSessionAdmin(ReadOnlyAdmin):
    list_display = ("started_at", "table", "seat_number", "patron", "ended_at", *RATING_COLUMNS)
    list_filter = ("table", ("player", admin.EmptyFieldListFilter))
    list_select_related = ("table", "seat", "player")
    date_hierarchy = "started_at"
    search_fields = ("player__username", "guest_name")
    change_list_template = "admin/wagering/seatsession_change_list.html"

    def get_urls(self):
        view = self.admin_site.admin_view(self.ratings_view)
        return [path("ratings/", view, name="tables_seatsession_ratings"), *super().get_urls()]

    def ratings_view(self, request: HttpRequest) -> HttpResponse:
        """The ratings report: totals per known patron, and per table and day (guests' sessions included);
        ``?export=patrons`` or ``table-days``: that table as a CSV file."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = ReportFilterForm(request.GET)
        report = None
        if form.is_valid():
            days = {"since": form.cleaned_data["since"], "until": form.cleaned_data["until"]}
            report = ratings_report(**days, table_id=form.table_id())
            export = RATINGS_EXPORTS.get(request.GET.get("export"))
            if export is not None:
                return export(report)
        return _report_page(
            self, request, "Ratings report", "admin/wagering/ratings_report.html", form=form, report=report
        )

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
    change_list_template = "admin/wagering/traycount_change_list.html"

    def get_urls(self):
        view = self.admin_site.admin_view(self.shifts_view)
        return [path("shifts/", view, name="wagering_traycount_shifts"), *super().get_urls()]

    def shifts_view(self, request: HttpRequest) -> HttpResponse:
        """Every shift with its report (``shift_report``): counts, fills, credits, drop, win, hold and variance;
        ``?export=csv``: every shift of the filter in one CSV file, up to ``SHIFTS_EXPORT_MAX``."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = ShiftFilterForm(request.GET)
        context = {}
        if form.is_valid():
            openings = shift_openings(
                since=form.cleaned_data["since"],
                until=form.cleaned_data["until"],
                table_id=form.table_id(),
                currency=form.cleaned_data["currency"],
            )
            if request.GET.get("export") == "csv":
                if openings.count() <= SHIFTS_EXPORT_MAX:
                    return shifts_csv(shift_report(opening=opening) for opening in openings)
                form.add_error(None, f"At most {SHIFTS_EXPORT_MAX} shifts in one file: choose fewer days or a table.")
            else:
                page = Paginator(openings, SHIFTS_PER_PAGE).get_page(request.GET.get("page"))
                context = {"page": page, "shifts": [shift_report(opening=opening) for opening in page]}
        return _report_page(self, request, "Shifts", "admin/wagering/shifts_report.html", form=form, **context)
