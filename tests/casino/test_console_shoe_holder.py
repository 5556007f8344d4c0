"""The dealer console's patrons' shoe (seed 002, issue 30): "Seat N holds the shoe" and the holder's decline or
pass, by the dealer logged in at the table or a pit boss; nobody else, never at another table."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import include, path

from tables.models import AuditLog, Table
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE
from tables.seating import patron_seat
from tables.selectors import table_shoe_holder_public
from tables.services import dealer_login, table_create, table_open, table_rules_update
from tests.casino.test_console import step, url
from tests.factories import SHUFFLED_AND_CUT, staff_client

urlpatterns = [path("admin/", admin.site.urls), path("console/", include("casino.console.urls"))]
pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


@pytest.fixture
def big_table(dealer_table, pit_boss):
    """The patrons hold the shoe; seats 2 and 6 taken: seat 2 holds it."""
    for number in (2, 6):
        patron_seat(table=dealer_table, seat_number=number, actor=pit_boss, guest_name=f"patron {number}")
    changes = {"patrons_hold_shoe": True}
    return table_rules_update(table=dealer_table, actor=pit_boss, changes=changes, reason="the big table")


def holder(table) -> int | None:
    return table_shoe_holder_public(table=Table.objects.get(pk=table.pk))["seat"]


def test_a_croupiers_shoe_shows_no_holder_and_no_button(dealer, dealer_table, pit_boss):
    patron_seat(table=dealer_table, seat_number=2, actor=pit_boss, guest_name="grey")
    page = dealer.get(url(dealer_table)).content.decode()
    assert "holds the shoe" not in page and "shoe-decline" not in page
    page = step(dealer, dealer_table, "shoe_holder_decline", seat=2)
    assert "the croupier holds the shoe at d1" in page


def test_the_dealer_sees_the_holder_and_the_shoe_declined_then_passed(dealer, big_table):
    page = dealer.get(url(big_table)).content.decode()
    assert "Seat 2 holds the shoe" in page and "Seat 2 declines the shoe" in page
    assert "passes the shoe" not in page

    page = step(dealer, big_table, "shoe_holder_decline", seat=2)
    assert "Seat 2 declined the shoe: seat 6 holds the shoe." in page
    assert "Seat 6 holds the shoe" in page and holder(big_table) == 6

    step(dealer, big_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    page = step(dealer, big_table, "coup_open")
    assert "declines the shoe" not in page  # between coups only
    round_id = big_table.coups.get().round_id
    step(dealer, big_table, "coup_close_betting", round_id=round_id)
    for card, hand in (("2S", "player"), ("9H", "banker"), ("3D", "player"), ("KC", "banker")):  # Banker 9 wins
        step(dealer, big_table, "coup_card", round_id=round_id, card=card, hand=hand)
    page = step(dealer, big_table, "coup_resolve", round_id=round_id)
    assert "Banker wins" in page and "Seat 6 holds the shoe" in page and "Seat 6 passes the shoe" in page

    page = step(dealer, big_table, "shoe_holder_pass", seat=6)
    assert "Seat 6 passed the shoe: seat 2 holds the shoe." in page and holder(big_table) == 2
    entries = AuditLog.objects.filter(action="shoe_holder_moved").order_by("pk")
    assert [(entry.actor_label, entry.reason) for entry in entries][-2:] == [("carla", "declined"), ("carla", "passed")]


def test_a_stale_page_does_not_hand_on_anothers_shoe(dealer, big_table):
    step(dealer, big_table, "shoe_holder_decline", seat=2)
    page = step(dealer, big_table, "shoe_holder_decline", seat=2)  # the same button again
    assert "seat 6 holds the shoe, not seat 2: the page was out of date" in page and holder(big_table) == 6


def test_a_pit_boss_of_the_table_may_hand_the_shoe_on(big_table):
    boss = staff_client("pia", PIT_BOSS)
    page = step(boss, big_table, "shoe_holder_decline", seat=2)
    assert "seat 6 holds the shoe" in page and holder(big_table) == 6


def test_players_anonymous_visitors_surveillance_and_other_tables_dealers_cannot(big_table, pit_boss):
    """None of them moves the shoe, by the button's URL or with a forged seat; nothing is audited."""
    audit = AuditLog.objects.count()
    player = get_user_model().objects.create_user(username="curious")
    signed_in = Client()
    signed_in.force_login(player)
    assert signed_in.post(url(big_table, "shoe_holder_decline"), {"seat": 2}).status_code == 403
    anonymous = Client().post(url(big_table, "shoe_holder_decline"), {"seat": 2})
    assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
    watcher = staff_client("eye", SURVEILLANCE)
    assert watcher.post(url(big_table, "shoe_holder_decline"), {"seat": 2}).status_code == 403

    other = table_open(
        table=table_create(code="d2", name="Dealer 2", actor=pit_boss, dealing_mode="dealer"), actor=pit_boss
    )
    elsewhere = staff_client("dora", DEALER)
    dealer_login(table=other, dealer=elsewhere.user, actor=pit_boss)
    audit = AuditLog.objects.count()
    for name in ("shoe_holder_decline", "shoe_holder_pass"):
        assert elsewhere.post(url(big_table, name), {"seat": 2}).status_code == 403
    assert "declines the shoe" not in elsewhere.get(url(big_table)).content.decode()  # seen, no button
    assert AuditLog.objects.count() == audit and holder(big_table) == 2
