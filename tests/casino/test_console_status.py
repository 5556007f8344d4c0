"""The dealer console's status poll (issue 18: the held-coup alert live): what the page follows without a
reload, the same as the page itself shows (seats, seated chips and shifts included), and neither the poll nor a
page's own refresh keeps an idle staff session alive."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tables.holds import coup_hold, coup_release
from tables.roles import PIT_BOSS
from tables.seating import patron_move, patron_seat, patron_unseat
from tests.casino.test_console import step, url
from tests.factories import staff_client
from wagering.chips import tray_count
from wagering.seated import seat_bets_place

pytestmark = pytest.mark.django_db


def status_of(client, table) -> dict:
    response = client.get(url(table, "status"))
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    return response.json()


def page_version(client, table) -> str:
    return re.search(r'data-status="([0-9a-f]{16})"', client.get(url(table)).content.decode())[1]


def test_a_hold_by_the_pit_reaches_the_dealers_poll_and_its_release_too(dealer, dealer_table, betting, pit_boss):
    calm = status_of(dealer, dealer_table)
    assert calm == {"version": page_version(dealer, dealer_table), "held_alert": "", "next_step": ""}

    coup_hold(coup=betting, actor=pit_boss, reason="surveillance asked")
    held = status_of(dealer, dealer_table)
    assert held["held_alert"] == (
        "Held for the pit: surveillance asked. Nothing is dealt until a pit boss decides in the admin."
    )
    assert held["version"] != calm["version"]
    page = dealer.get(url(dealer_table)).content.decode()
    assert f'data-status="{held["version"]}"' in page
    assert f'<p class="alert" role="alert" data-held-alert>{held["held_alert"]}</p>' in page  # shown, not hidden
    assert "No more bets" not in page

    coup_release(coup=betting, actor=pit_boss, reason="all clear")
    assert status_of(dealer, dealer_table) == calm  # the panels show again what they showed
    assert "data-held-alert hidden></p>" in dealer.get(url(dealer_table)).content.decode()


def test_the_poll_says_the_next_step_and_changes_with_every_card(dealer, dealer_table, betting):
    step(dealer, dealer_table, "coup_close_betting", round_id=betting.round_id)
    closed = status_of(dealer, dealer_table)
    assert closed["next_step"] == "Card 1 to the Player"
    step(dealer, dealer_table, "coup_card", round_id=betting.round_id, card="2S", hand="player")
    dealt = status_of(dealer, dealer_table)
    assert dealt["next_step"] == "Card 2 to the Banker"
    assert dealt["version"] != closed["version"]
    assert dealt["version"] == page_version(dealer, dealer_table)


def test_a_pit_boss_watching_the_console_polls_it_too(dealer_table, betting, django_assert_max_num_queries):
    boss = staff_client("pia", PIT_BOSS)
    shown = page_version(boss, dealer_table)
    # The session and the user, then the table, dealer, shoe, coup, cards, seats, seated chips and open shifts.
    with django_assert_max_num_queries(13):
        polled = status_of(boss, dealer_table)
    assert polled["version"] == shown


def test_the_poll_does_not_keep_an_idle_staff_session_alive(dealer, dealer_table, betting):
    session = Session.objects.get(session_key=dealer.session.session_key)
    page = dealer.get(url(dealer_table))
    assert "sessionid" in page.cookies  # a page the dealer asks for puts off the idle expiry
    extended = Session.objects.get(pk=session.pk).expire_date

    poll = dealer.get(url(dealer_table, "status"))
    assert poll.status_code == 200
    assert "sessionid" not in poll.cookies
    assert Session.objects.get(pk=session.pk).expire_date == extended


def test_only_a_dealer_tables_status_is_polled_and_only_read(dealer, dealer_table, auto_table):
    assert dealer.get(url(auto_table, "status")).status_code == 404
    assert dealer.post(url(dealer_table, "status")).status_code == 405


def test_seats_seated_chips_and_shifts_changed_elsewhere_reach_the_poll(dealer, dealer_table, betting, pit_boss):
    versions = [status_of(dealer, dealer_table)["version"]]
    assert status_of(dealer, dealer_table)["version"] == versions[-1]  # nothing changed: nothing to swap in

    def changed() -> None:
        version = status_of(dealer, dealer_table)["version"]
        assert version != versions[-1]
        assert version == page_version(dealer, dealer_table)
        versions.append(version)

    seated = patron_seat(table=dealer_table, seat_number=3, actor=pit_boss, guest_name="lady in red")
    changed()
    seated = patron_move(session=seated, seat_number=5, actor=pit_boss)
    changed()
    tray_count(table=dealer_table, currency="EUR", counted="8000", actor=pit_boss)
    changed()
    seat_bets_place(coup=betting, seat_session=seated, bets={"banker": "50.00"}, actor=pit_boss)
    changed()
    seat_bets_place(coup=betting, seat_session=seated, bets={"banker": "20.00"}, actor=pit_boss)
    changed()
    other = patron_seat(table=dealer_table, seat_number=7, actor=pit_boss, guest_name="man in grey")
    changed()
    patron_unseat(session=other, actor=pit_boss)
    changed()  # back to what it was before he sat down
    assert versions[-1] == versions[-3]
    assert status_of(dealer, dealer_table)["version"] == versions[-1]


def expiring_in_a_minute(client: Client) -> Session:
    """The staff member's session as if their last request were long ago: a minute before it ends."""
    session = Session.objects.get(session_key=client.session.session_key)
    session.expire_date = timezone.now() + timedelta(minutes=1)
    session.save()
    return session


@pytest.mark.parametrize("page", ["console", "pit screen"])
def test_a_pages_own_refresh_keeps_no_idle_staff_session_alive_a_visit_does(page, dealer, dealer_table, betting):
    client, address = (
        (dealer, url(dealer_table)) if page == "console" else (staff_client("pia", PIT_BOSS), reverse("console:pit"))
    )
    session = expiring_in_a_minute(client)

    refreshed = client.get(address, HTTP_X_AUTO_REFRESH="1")  # static/js/console.js's own fetch
    assert refreshed.status_code == 200
    assert "sessionid" not in refreshed.cookies
    assert Session.objects.get(pk=session.pk).expire_date == session.expire_date

    visited = client.get(address)
    assert visited.status_code == 200 and "sessionid" in visited.cookies
    idle_end = timezone.now() + timedelta(minutes=settings.STAFF_SESSION_IDLE_MINUTES)
    assert Session.objects.get(pk=session.pk).expire_date > idle_end - timedelta(minutes=1)


def test_the_auto_refresh_header_grants_nothing(dealer, dealer_table):
    assert dealer.get(reverse("console:pit"), HTTP_X_AUTO_REFRESH="1").status_code == 403  # a dealer is no pit boss
    anonymous = Client().get(url(dealer_table), HTTP_X_AUTO_REFRESH="1")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("admin:login"))
