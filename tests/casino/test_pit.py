"""The pit screen (issue 18): every table live for the pit boss, with the held coups and the differentials
close to their limit as alerts; nobody else sees it."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from django.test import Client
from django.urls import reverse

from tables.holds import coup_hold
from tables.models import LimitSet
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE
from tables.seating import patron_seat
from tests.casino.test_console import staff_client
from tests.factories import CoupFactory, UserFactory
from wagering.chips import tray_count
from wagering.seated import seat_bets_place

pytestmark = pytest.mark.django_db
PIT = reverse("console:pit")


def test_the_pit_boss_sees_every_table_with_its_alerts(
    dealer_table, auto_table, pit_boss, django_assert_max_num_queries
):
    LimitSet.objects.filter(table=dealer_table).update(max_differential=D("1000.00"))
    coup = CoupFactory(table=dealer_table)
    seated = patron_seat(table=dealer_table, seat_number=2, actor=pit_boss, guest_name="big player")
    tray_count(table=dealer_table, currency="EUR", counted="8000", actor=pit_boss)
    seat_bets_place(coup=coup, seat_session=seated, bets={"banker": "950.00"}, actor=pit_boss)
    held = CoupFactory(table=auto_table)
    coup_hold(coup=held, actor=pit_boss, reason="card for the wrong hand")
    boss = staff_client("pia", PIT_BOSS)

    with django_assert_max_num_queries(40):
        page = boss.get(PIT).content.decode()
    assert f"t1: coup {held.round_id} held for the pit: card for the wrong hand" in page
    assert f"d1: differential 950.00 of 1000.00 EUR on {coup.round_id}" in page
    assert "2: big player" in page and "drop 0.00, win 0.00" in page
    assert 'data-auto-refresh="5"' in page


def test_a_calm_floor_has_no_alerts(auto_table):
    assert "No alerts." in staff_client("pia", PIT_BOSS).get(PIT).content.decode()


@pytest.mark.parametrize("role", [DEALER, SURVEILLANCE])
def test_dealers_and_surveillance_do_not_see_the_pit_screen(auto_table, role):
    assert staff_client("someone", role).get(PIT).status_code == 403


def test_players_and_visitors_do_not_see_it(auto_table):
    player = Client()
    player.force_login(UserFactory())
    assert player.get(PIT).status_code == 403
    visitor = Client().get(PIT)
    assert visitor.status_code == 302 and "/admin/login/" in visitor["Location"]
