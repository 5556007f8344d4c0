"""A result correction paying seated chips from the tray while a pit boss closes the shift, on PostgreSQL: the
close is injected at a named point of the approval, and waits for it, then counts it: never a tray movement
between two shifts (a close before the approval refuses it: ``test_seated``), never a deadlock."""

from __future__ import annotations

import threading
from decimal import Decimal as D

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

import wagering.corrections
from casino import lifecycle
from tables import corrections
from tables.roles import PIT_BOSS, roles_ensure
from tables.seating import patron_seat
from tests.factories import CoupFactory
from tests.wagering.conftest import postgres_only
from tests.wagering.test_seated import settle_banker_natural
from wagering.chips import tray_count
from wagering.models import Account, TrayCount
from wagering.seated import seat_bets_place

pytestmark = [postgres_only, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def correction(dealer_table, pit_boss):
    """A settled coup whose seated Banker bet of 100 was paid 195 from the tray, and a correction (Player wins)
    that takes the 195 back, requested by one pit boss; the shift still open."""
    tray_count(table=dealer_table, currency="EUR", counted="10000.00", actor=pit_boss)
    coup = CoupFactory(table=dealer_table)
    guest = patron_seat(table=dealer_table, seat_number=3, actor=pit_boss, guest_name="guest")
    seat_bets_place(coup=coup, seat_session=guest, bets={"banker": "100.00"}, actor=pit_boss)
    settle_banker_natural(coup)
    requester = get_user_model().objects.create_user(username="ana", is_staff=True)
    requester.groups.add(roles_ensure()[PIT_BOSS])
    return corrections.result_correction_request(
        coup=coup, player_cards="9S KD", banker_cards="2H 3C", reason="cards misread", actor=requester
    )


@pytest.fixture
def approver(db):
    user = get_user_model().objects.create_user(username="ben", is_staff=True)
    user.groups.add(roles_ensure()[PIT_BOSS])
    return user


def tray() -> D:
    return Account.objects.get(kind=Account.Kind.CHIP_TRAY).balance


def close_in_a_thread(table, pit_boss, competing: dict) -> threading.Thread:
    def close() -> None:
        try:
            competing["closing"] = tray_count(table=table, currency="EUR", counted="9905.00", actor=pit_boss)
        finally:
            connection.close()

    thread = threading.Thread(target=close)
    thread.start()
    return thread


@pytest.mark.parametrize("point", ["_tray_shifts_checked", "ledger_post"])
def test_a_shift_closing_during_the_approval_waits_and_counts_the_correction(
    correction, approver, dealer_table, pit_boss, monkeypatch, point
):
    """Injected as the approval checks the shift is open, and as it posts to the tray: the close waits for the
    table the approval holds, then counts the tray with the 195 back in it."""
    competing: dict = {}
    original = getattr(wagering.corrections, point)

    def close_meanwhile(*args, **kwargs):
        thread = close_in_a_thread(dealer_table, pit_boss, competing)
        thread.join(timeout=1.5)  # it waits for the table's row, which the approval holds
        competing["waited"], competing["thread"] = thread.is_alive(), thread
        return original(*args, **kwargs)

    monkeypatch.setattr(wagering.corrections, point, close_meanwhile)
    lifecycle.result_correction_approve(correction=correction, actor=approver)
    competing["thread"].join(timeout=10)
    assert competing["waited"]
    assert competing["closing"].kind == TrayCount.Kind.CLOSING
    assert competing["closing"].ledger_balance == tray() == D("100.00")  # -95 after the coup, +195 corrected
