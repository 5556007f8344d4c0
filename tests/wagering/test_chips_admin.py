"""Seated play in the admin (issue 18): the ratings per patron and per table and day, for the pit and
surveillance to read, never to change."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client
from django.urls import reverse

from casino.lifecycle.settlement import coup_settle
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE, roles_ensure
from tables.seating import patron_seat
from tests.factories import CoupFactory, UserFactory, coup_deal_and_resolve, staff_login
from wagering import chips_admin
from wagering.chips import seat_buy_in, tray_count, tray_credit, tray_fill
from wagering.seated import seat_bets_place

pytestmark = pytest.mark.django_db
CHANGELIST = "admin:tables_seatsession_changelist"


def staff(role: str) -> Client:
    user = UserFactory(is_staff=True)
    user.groups.add(roles_ensure()[role])
    return staff_login(Client(), user)


@pytest.fixture
def rated(dealer_table, pit_boss):
    tray_count(table=dealer_table, currency="EUR", counted="5000", actor=pit_boss)
    session = patron_seat(table=dealer_table, seat_number=5, actor=pit_boss, guest_name="rated guest")
    seat_buy_in(seat_session=session, amount="250", actor=pit_boss)
    coup = CoupFactory(table=dealer_table)
    seat_bets_place(coup=coup, seat_session=session, bets={"banker": "100.00"}, actor=pit_boss)
    coup_deal_and_resolve(coup, "2S 9H 3D KC")
    coup_settle(coup_id=coup.pk)
    return session


@pytest.mark.parametrize("role", [PIT_BOSS, SURVEILLANCE])
def test_the_pit_and_surveillance_read_the_ratings(rated, role, django_assert_max_num_queries):
    client = staff(role)
    with django_assert_max_num_queries(20):
        page = client.get(reverse(CHANGELIST), {"table__id__exact": rated.table_id}).content.decode()
    assert "rated guest" in page
    for shown in ("250.00", "100.00", "1.06", "-95.00"):  # buy-in, average bet, theoretical and actual win
        assert f">{shown}<" in page
    assert client.post(reverse("admin:tables_seatsession_change", args=[rated.pk]), {}).status_code == 403


def test_a_dealer_and_a_player_cannot_read_them(rated):
    assert staff(DEALER).get(reverse(CHANGELIST)).status_code == 403
    player = Client()
    player.force_login(UserFactory())
    assert player.get(reverse(CHANGELIST)).status_code == 302  # to the admin's sign-in


RATINGS = "admin:tables_seatsession_ratings"
SHIFTS = "admin:wagering_traycount_shifts"


def row_cells(page: str, row_attribute: str) -> dict[str, str]:
    """The figures (``td.field-*``) of the report's row marked ``row_attribute`` (e.g. 'data-table="d1"')."""
    row = re.search(rf"<tr {row_attribute}[^>]*>(.*?)</tr>", page, re.DOTALL)
    assert row, row_attribute
    return dict(re.findall(r'<td class="field-(\w+)">([^<]*)</td>', row.group(1)))


@pytest.mark.parametrize("role", [PIT_BOSS, SURVEILLANCE])
def test_the_ratings_report_adds_up_the_sessions_per_table_and_day(rated, role, django_assert_max_num_queries):
    client = staff(role)
    assert reverse(RATINGS) in client.get(reverse(CHANGELIST)).content.decode()  # linked from Seat sessions
    with django_assert_max_num_queries(20):
        page = client.get(reverse(RATINGS), {"table": rated.table_id}).content.decode()
    figures = row_cells(page, 'data-table="d1"')
    assert figures == {
        "players": "0",
        "guests": "1",
        "sessions": "1",
        "minutes": figures["minutes"],
        "buy_in": "250.00",
        "hands": "1",
        "average_bet": "100.00",
        "staked": "100.00",
        "theoretical_win": "1.06",  # 100 x 1.058%
        "actual_win": "-95.00",
    }
    assert "No known player was rated in these days." in page  # a guest has no patron row


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"since": "2026-11-20", "until": "2026-11-10"}, "The first day comes after the last."),
        ({"since": "2026-01-01", "until": "2026-11-10"}, "At most 92 days at once."),
        ({"since": "2026-13-45"}, "Enter a valid date."),
        ({"table": "999999"}, "Select a valid choice."),
        ({"table": "' OR 1=1 --"}, "Select a valid choice."),
    ],
)
def test_a_bad_report_filter_is_explained_and_shows_no_figures(rated, query, message):
    for name in (RATINGS, SHIFTS):
        page = staff(PIT_BOSS).get(reverse(name), query)
        assert page.status_code == 200
        content = page.content.decode()
        assert message in content and "report-table" not in content  # no figures


def test_the_shift_list_has_each_closed_shifts_report(rated, pit_boss, django_assert_max_num_queries):
    """Opening 5,000, fill 1,000, buy-in 250, the seat won 95, credit 400: the tray should hold 5,255."""
    tray_fill(table=rated.table, currency="EUR", amount="1000", actor=pit_boss)
    tray_credit(table=rated.table, currency="EUR", amount="400", actor=pit_boss)
    closing = tray_count(table=rated.table, currency="EUR", counted="5250", actor=pit_boss)
    next_shift = tray_count(table=rated.table, currency="EUR", counted="5250", actor=pit_boss)  # open
    client = staff(SURVEILLANCE)
    assert reverse(SHIFTS) in client.get(reverse("admin:wagering_traycount_changelist")).content.decode()
    with django_assert_max_num_queries(25):
        page = client.get(reverse(SHIFTS), {"currency": "EUR"}).content.decode()
    assert row_cells(page, f'data-shift="{closing.opening_id}"') == {
        "opening": "5000.00",
        "fills": "1000.00",
        "credits": "400.00",
        "drop": "250.00",
        "closing": "5250.00",
        "tray_now": "5255.00",  # 5,000 + 1,000 - 250 - 95 - 400
        "count_win": "-100.00",  # 250 + 5,250 - 5,000 + 400 - 1,000
        "variance": "-5.00",
        "seated_win": "-95.00",
        "hold_percent": "-38.00",  # -95 / 250
        "online_staked": "0.00",
        "online_win": "0.00",
        "table_win": "-95.00",
    }
    reopened = row_cells(page, f'data-shift="{next_shift.pk}"')
    assert (reopened["opening"], reopened["closing"], reopened["count_win"]) == ("5250.00", "-", "-")
    assert "No shift opened in these days." in client.get(reverse(SHIFTS), {"currency": "USD"}).content.decode()
    assert "Select a valid choice" in client.get(reverse(SHIFTS), {"currency": "XXX"}).content.decode()
    for page_number in ("' OR 1=1 --", "-1", "99999"):  # the nearest page, never an error
        shown = client.get(reverse(SHIFTS), {"page": page_number}).content.decode()
        assert f'data-shift="{closing.opening_id}"' in shown


@pytest.mark.parametrize("name", [RATINGS, SHIFTS])
def test_a_dealer_and_a_player_cannot_read_the_reports(rated, name):
    assert staff(DEALER).get(reverse(name)).status_code == 403
    player = Client()
    player.force_login(UserFactory())
    assert player.get(reverse(name))["Location"].startswith("/admin/login/")


def csv_rows(response) -> list[dict[str, str]]:
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith("attachment; filename=")
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_the_ratings_export_as_csv_with_the_pages_figures(rated, pit_boss):
    """Each table of the report as a CSV file, the page's filter applied; a guest's name a spreadsheet would run
    as a formula is written as text."""
    client = staff(SURVEILLANCE)
    page = client.get(reverse(RATINGS), {"table": rated.table_id}).content.decode()
    assert "export=patrons" in page and "export=table-days" in page
    [day] = csv_rows(client.get(reverse(RATINGS), {"table": rated.table_id, "export": "table-days"}))
    assert {key: day[key] for key in ("table", "players", "guest_sessions", "buy_in", "hands")} == {
        "table": "d1",
        "players": "0",
        "guest_sessions": "1",
        "buy_in": "250.00",
        "hands": "1",
    }
    assert (day["average_bet"], day["theoretical_win"], day["actual_win"]) == ("100.00", "1.06", "-95.00")

    patron = UserFactory(username='=HYPERLINK("http://evil.example","x")')
    patron_seat(table=rated.table, seat_number=7, actor=pit_boss, player=patron)
    [row] = csv_rows(client.get(reverse(RATINGS), {"export": "patrons"}))
    assert row["patron"].startswith("'=HYPERLINK") and row["currency"] == "EUR"
    bad_filter = client.get(reverse(RATINGS), {"export": "patrons", "since": "2026-13-45"})
    assert bad_filter["Content-Type"].startswith("text/html") and "Enter a valid date." in bad_filter.content.decode()


def test_the_shifts_export_as_csv_every_shift_of_the_filter(rated, pit_boss):
    closing = tray_count(table=rated.table, currency="EUR", counted="5000", actor=pit_boss)
    tray_count(table=rated.table, currency="EUR", counted="5000", actor=pit_boss)  # the next shift, open
    client = staff(PIT_BOSS)
    assert "export=csv" in client.get(reverse(SHIFTS)).content.decode()
    rows = csv_rows(client.get(reverse(SHIFTS), {"export": "csv", "page": "1"}))
    assert [row["closing_count"] for row in rows] == ["", "5000.00"]  # latest first; the open one has none
    closed = rows[1]
    assert (closed["table"], closed["opened_by"], closed["closed_by"]) == ("d1", "boss", "boss")
    assert (closed["drop"], closed["tray_should_hold"], closed["variance"]) == ("250.00", "4655.00", "345.00")
    assert closed["closed_at"] == closing.created_at.isoformat(timespec="seconds")
    assert csv_rows(client.get(reverse(SHIFTS), {"export": "csv", "currency": "USD"})) == []


def test_a_shifts_export_too_large_is_refused_with_the_reason(rated, pit_boss, monkeypatch):
    monkeypatch.setattr(chips_admin, "SHIFTS_EXPORT_MAX", 1)
    tray_count(table=rated.table, currency="EUR", counted="5000", actor=pit_boss)
    tray_count(table=rated.table, currency="EUR", counted="5000", actor=pit_boss)  # two shifts
    page = staff(PIT_BOSS).get(reverse(SHIFTS), {"export": "csv"})
    assert page["Content-Type"].startswith("text/html")
    assert "At most 1 shifts in one file: choose fewer days or a table." in page.content.decode()
