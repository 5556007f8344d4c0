"""The dealer console's status poll (issue 18: the held-coup alert live): what the page follows without a
reload, the same as the page itself shows, and a poll that keeps no idle staff session alive."""

from __future__ import annotations

import re

import pytest
from django.contrib.sessions.models import Session

from tables.holds import coup_hold, coup_release
from tables.roles import DEALER, PIT_BOSS
from tables.services import dealer_login
from tests.casino.test_console import live_coup, staff_client, step, url
from tests.factories import SHUFFLED_AND_CUT

pytestmark = pytest.mark.django_db


@pytest.fixture
def dealer(dealer_table, pit_boss):
    client = staff_client("carla", DEALER)
    dealer_login(table=dealer_table, dealer=client.user, actor=pit_boss)
    return client


@pytest.fixture
def betting(dealer, dealer_table):
    step(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    step(dealer, dealer_table, "coup_open")
    return live_coup(dealer_table)


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
    with django_assert_max_num_queries(12):  # the session and the user, then the table, dealer, shoe, coup, cards
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
