"""Races at the seats (issue 18), on PostgreSQL: the competing call is injected at a named point of the first."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client

import casino.console.seats
from tables.models import SeatSession
from tables.roles import DEALER
from tables.seating import patron_seat
from tables.services import dealer_login
from tests.casino.test_console import url
from tests.factories import CoupFactory, staff_client
from tests.wagering.conftest import postgres_only
from wagering.chips import tray_count
from wagering.errors import BetRejected
from wagering.models import Bet
from wagering.seated import seat_bets_place

pytestmark = [postgres_only, pytest.mark.django_db(transaction=True), pytest.mark.urls("tests.casino.test_console")]


def test_chips_entered_while_the_patron_leaves_wait_and_are_refused(dealer_table, pit_boss, monkeypatch):
    """The patron's leaving checks they have no chips in play; chips entered for them just after that check
    (``seat_session_has_bets_in_play``) must not land on a patron who then leaves."""
    dealer: Client = staff_client("carla", DEALER)
    dealer_login(table=dealer_table, dealer=dealer.user, actor=pit_boss)
    coup = CoupFactory(table=dealer_table)
    session = patron_seat(table=dealer_table, seat_number=4, actor=pit_boss, guest_name="leaving")
    tray_count(table=dealer_table, currency="EUR", counted="10000", actor=pit_boss)  # seated chips need a shift
    competing: dict[str, object] = {}
    checked = casino.console.seats.seat_session_has_bets_in_play

    def enter_chips() -> None:
        try:
            competing["result"] = seat_bets_place(
                coup=coup, seat_session=session, bets={"banker": "50.00"}, actor=pit_boss
            )
        except BetRejected as refusal:
            competing["result"] = refusal
        finally:
            connection.close()

    def check_then_compete(*, seat_session: SeatSession) -> bool:
        answer = checked(seat_session=seat_session)
        thread = threading.Thread(target=enter_chips)
        thread.start()
        thread.join(timeout=1.5)  # it waits for the patron's session: still running
        competing["waited"] = thread.is_alive()
        competing["thread"] = thread
        return answer

    monkeypatch.setattr(casino.console.seats, "seat_session_has_bets_in_play", check_then_compete)
    response = dealer.post(url(dealer_table, "patron_unseat"), {"session": session.pk}, follow=True)
    competing["thread"].join(timeout=10)

    assert "leaving left seat 4." in response.content.decode()
    assert competing["waited"] is True
    assert isinstance(competing["result"], BetRejected) and competing["result"].code == "not_seated"
    assert not Bet.objects.filter(seat_session=session).exists()
