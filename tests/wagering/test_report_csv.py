"""The reports' CSV cells: text a spreadsheet would run as a formula is kept as text; figures stay figures."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from wagering.report_csv import csv_response


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tTAB", "'\tTAB"),
        ("lady in red", "lady in red"),
        (Decimal("-95.00"), "-95.00"),
        (3, "3"),
        (None, ""),
        (date(2026, 11, 26), "2026-11-26"),
        (datetime(2026, 11, 26, 9, 30, 15, 123, tzinfo=UTC), "2026-11-26T09:30:15+00:00"),
    ],
)
def test_a_cell_is_written_safe_for_a_spreadsheet(value, written):
    response = csv_response(filename="x", header=["cell"], rows=[[value]])
    assert list(csv.reader(io.StringIO(response.content.decode()))) == [["cell"], [written]]
