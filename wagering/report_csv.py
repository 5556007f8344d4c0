"""The admin's reports as CSV files, for a spreadsheet: the same figures as the pages, one row per line.

A text cell a spreadsheet would run as a formula (a guest's name typed as ``=HYPERLINK(...)``) is written
with a leading apostrophe, as OWASP's CSV injection advice has it; amounts and counts are written as they are.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal

from django.http import HttpResponse

from wagering.chip_reports import ShiftReport
from wagering.rating_reports import RatingsReport, RatingTotals

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
TOTALS_HEADER = ("sessions", "minutes", "buy_in", "hands", "average_bet", "staked", "theoretical_win", "actual_win")
SHIFT_HEADER = (
    "table",
    "currency",
    "opened_at",
    "opened_by",
    "closed_at",
    "closed_by",
    "opening_count",
    "fills",
    "credits",
    "drop",
    "closing_count",
    "tray_should_hold",
    "win_by_the_counts",
    "variance",
    "win_seated",
    "hold_percent",
    "online_staked",
    "win_online",
    "win_table",
)


def csv_response(*, filename: str, header: Iterable[str], rows: Iterable[Iterable[object]]) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows([_cell(value) for value in row] for row in rows)
    return response


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (Decimal, int)):
        return value
    text = str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def _totals(totals: RatingTotals) -> list[object]:
    return [getattr(totals, name) for name in TOTALS_HEADER]


def ratings_by_patron_csv(report: RatingsReport) -> HttpResponse:
    rows = ([row.patron, row.currency, *_totals(row.totals)] for row in report.patrons)
    return csv_response(filename="ratings-by-patron", header=("patron", "currency", *TOTALS_HEADER), rows=rows)


def ratings_by_table_day_csv(report: RatingsReport) -> HttpResponse:
    rows = (
        [row.day, row.table.code, row.currency, row.players, row.guests, *_totals(row.totals)]
        for row in report.table_days
    )
    header = ("day", "table", "currency", "players", "guest_sessions", *TOTALS_HEADER)
    return csv_response(filename="ratings-by-table-day", header=header, rows=rows)


def shifts_csv(shifts: Iterable[ShiftReport]) -> HttpResponse:
    rows = (
        [
            shift.opening.table.code,
            shift.opening.currency,
            shift.opening.created_at,
            shift.opening.actor,
            shift.closing.created_at if shift.closing else None,
            shift.closing.actor if shift.closing else None,
            shift.opening.counted,
            shift.fills,
            shift.credits,
            shift.drop,
            shift.closing.counted if shift.closing else None,
            shift.tray_now,
            shift.count_win,
            shift.variance,
            shift.seated_win,
            shift.hold_percent,
            shift.online_staked,
            shift.online_win,
            shift.table_win,
        ]
        for shift in shifts
    )
    return csv_response(filename="shifts", header=SHIFT_HEADER, rows=rows)
