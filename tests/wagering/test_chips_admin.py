"""Seated play in the admin (issue 18): the ratings per patron and per table and day, for the pit and
surveillance to read, never to change."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from casino.settlement import coup_settle
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE, roles_ensure
from tables.seating import patron_seat
from tests.factories import CoupFactory, UserFactory, coup_resolve, staff_login
from wagering.chips import seat_buy_in, tray_count
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
    coup_resolve(coup, "2S 9H 3D KC")
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
