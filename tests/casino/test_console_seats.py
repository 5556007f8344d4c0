"""The dealer console's seats (issue 18): patrons seated, moved and unseated, chips entered per seat and box,
and who may do it: the dealer logged in at the table and a pit boss, nobody else, never at another table."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import include, path

from casino import lifecycle
from casino.lifecycle.settlement import coup_settle
from tables.models import AuditLog, LimitSet, SeatSession
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE
from tables.seating import patron_seat
from tables.services import table_create, table_open
from tests.casino.test_console import step, url
from tests.factories import CoupFactory, staff_client
from wagering.checks import ledger_check, settlement_check
from wagering.chips import tray_count
from wagering.models import Account, Bet
from wagering.seated import seat_bets_place
from wagering.selectors import coup_bet_totals

urlpatterns = [path("admin/", admin.site.urls), path("console/", include("casino.console.urls"))]
pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


def seated_state() -> list:
    return list(SeatSession.objects.order_by("pk").values_list("seat__number", "guest_name", "ended_at"))


def test_the_dealer_seats_moves_and_unseats_patrons(dealer, dealer_table):
    player = get_user_model().objects.create_user(username="lucia")
    page = step(dealer, dealer_table, "patron_seat", seat=3, player="lucia")
    assert "lucia seated at seat 3, playing EUR chips." in page
    page = step(dealer, dealer_table, "patron_seat", seat=7, guest_name="man in grey")
    assert "man in grey seated at seat 7" in page
    session = SeatSession.objects.get(player=player)

    page = step(dealer, dealer_table, "patron_move", session=session.pk, seat=9)
    assert "lucia moved from seat 3 to seat 9." in page
    page = step(dealer, dealer_table, "patron_unseat", session=session.pk)
    assert "lucia left seat 9." in page
    assert [(number, name) for number, name, ended in seated_state() if ended is None] == [(7, "man in grey")]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"seat": 3}, "Give the player&#x27;s username or a guest&#x27;s name"),
        ({"seat": 3, "player": "nobody"}, "no active player is named &#x27;nobody&#x27;"),
        ({"seat": 3, "player": "carla"}, "no active player is named &#x27;carla&#x27;"),  # staff are not patrons
        ({"seat": 12, "guest_name": "x"}, "Select a valid choice"),
        ({"seat": 3, "guest_name": "x", "currency": "usd"}, "takes bets in EUR, not in USD"),
    ],
)
def test_bad_seating_is_shown_and_changes_nothing(dealer, dealer_table, data, message):
    page = step(dealer, dealer_table, "patron_seat", **data)
    assert message in page
    assert seated_state() == []


def test_seat_bets_count_and_settle_to_the_seat_in_chips(dealer, dealer_table, betting):
    step(dealer, dealer_table, "patron_seat", seat=2, guest_name="grey")
    session = SeatSession.objects.get()
    chips = {"session": session.pk, "round_id": betting.round_id, "bet_type": "banker", "stake": "100"}
    page = step(dealer, dealer_table, "seat_bet", **chips)  # chips are played only in a shift
    assert "no shift is open at table d1 in EUR: a pit boss counts the tray before chips are played" in page
    assert not Bet.objects.exists()
    step(staff_client("pia", PIT_BOSS), dealer_table, "tray_count", currency="EUR", amount="10000")
    page = step(dealer, dealer_table, "seat_bet", **chips)
    assert "Seat 2: 100.00 on Banker (100.00 EUR in all)." in page
    page = step(
        dealer, dealer_table, "seat_bet", session=session.pk, round_id=betting.round_id, bet_type="banker", stake="5000"
    )
    assert "Banker: 5100.00 is over the table maximum of 1000.00" in page and Bet.objects.count() == 1
    page = step(dealer, dealer_table, "patron_unseat", session=session.pk)
    assert "grey has chips in play" in page and seated_state()[0][2] is None

    step(dealer, dealer_table, "coup_close_betting", round_id=betting.round_id)
    for card, hand in (("2S", "player"), ("9H", "banker"), ("3D", "player"), ("KC", "banker")):
        step(dealer, dealer_table, "coup_card", round_id=betting.round_id, card=card, hand=hand)
    step(dealer, dealer_table, "coup_resolve", round_id=betting.round_id)
    coup_settle(coup_id=betting.pk)

    page = dealer.get(url(dealer_table)).content.decode()
    assert "Banker 100.00: win, pay 195.00" in page
    assert Account.objects.get(kind=Account.Kind.CHIP_TRAY).balance == D("-95.00")
    assert ledger_check().ok and not settlement_check().problems


def test_chips_are_refused_once_betting_closes(dealer, dealer_table, betting):
    session = patron_seat(table=dealer_table, seat_number=1, actor=dealer.user, guest_name="late")
    step(dealer, dealer_table, "coup_close_betting", round_id=betting.round_id)
    page = step(
        dealer, dealer_table, "seat_bet", session=session.pk, round_id=betting.round_id, bet_type="tie", stake="5"
    )
    assert "no more bets" in page and not Bet.objects.exists()


def test_a_pit_boss_may_seat_patrons(dealer_table):
    boss = staff_client("pia", PIT_BOSS)
    page = step(boss, dealer_table, "patron_seat", seat=5, guest_name="vip")
    assert "vip seated at seat 5" in page


@pytest.mark.parametrize("role", [SURVEILLANCE, DEALER])
def test_surveillance_and_a_dealer_not_at_the_table_cannot_touch_the_seats(dealer_table, dealer, role):
    """A dealer logged in nowhere (or at another table) and surveillance (read-only) are refused."""
    outsider = staff_client("outsider", role)
    session = patron_seat(table=dealer_table, seat_number=1, actor=dealer.user, guest_name="sitting")
    audit = AuditLog.objects.count()
    for name, data in (
        ("patron_seat", {"seat": 2, "guest_name": "x"}),
        ("patron_move", {"session": session.pk, "seat": 4}),
        ("patron_unseat", {"session": session.pk}),
    ):
        assert outsider.post(url(dealer_table, name), data).status_code == 403
    assert AuditLog.objects.count() == audit
    assert seated_state() == [(1, "sitting", None)]


def test_players_and_anonymous_visitors_cannot_reach_the_seats(dealer_table):
    player = get_user_model().objects.create_user(username="curious")
    signed_in = Client()
    signed_in.force_login(player)
    assert signed_in.post(url(dealer_table, "patron_seat"), {"seat": 2, "guest_name": "x"}).status_code == 403
    anonymous = Client().post(url(dealer_table, "patron_seat"), {"seat": 2, "guest_name": "x"})
    assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
    assert seated_state() == []


def test_a_patron_of_another_table_cannot_be_moved_or_bet_for_from_this_one(dealer, dealer_table, betting, pit_boss):
    """The dealer at d1 posts the session id of a patron seated at d2: refused, nothing changes."""
    other = table_open(
        table=table_create(code="d2", name="Dealer 2", actor=pit_boss, dealing_mode="dealer"), actor=pit_boss
    )
    elsewhere = patron_seat(table=other, seat_number=1, actor=pit_boss, guest_name="elsewhere")
    for name, data in (
        ("patron_move", {"session": elsewhere.pk, "seat": 4}),
        ("patron_unseat", {"session": elsewhere.pk}),
        ("seat_bet", {"session": elsewhere.pk, "round_id": betting.round_id, "bet_type": "banker", "stake": "10"}),
    ):
        page = step(dealer, dealer_table, name, **data)
        assert "that patron is not seated at this table" in page
    assert seated_state() == [(1, "elsewhere", None)] and not Bet.objects.exists()


def test_the_pit_boss_runs_the_tray_and_the_dealer_sells_chips_to_a_seat(dealer, dealer_table):
    """Fills, credits and counts are the pit boss's; a buy-in at a seat is the dealer's (or the pit's)."""
    boss = staff_client("pia", PIT_BOSS)
    session = patron_seat(table=dealer_table, seat_number=2, actor=boss.user, guest_name="grey")
    for name in ("tray_count", "tray_fill", "tray_credit"):
        assert dealer.post(url(dealer_table, name), {"currency": "EUR", "amount": "100"}).status_code == 403
    page = step(dealer, dealer_table, "seat_buy_in", session=session.pk, amount="200")
    assert "has not been counted in EUR: open the shift with a count first" in page

    assert "Shift opened: 5000.00 EUR counted" in step(boss, dealer_table, "tray_count", currency="EUR", amount="5000")
    assert "Fill: 1000.00 EUR from the cage." in step(boss, dealer_table, "tray_fill", currency="EUR", amount="1000")
    page = step(dealer, dealer_table, "seat_buy_in", session=session.pk, amount="200")
    assert "Seat 2: 200.00 EUR in chips for cash." in page and "In 200.00 · 0 hands" in page
    assert "Credit: 300.00 EUR to the cage." in step(boss, dealer_table, "tray_credit", currency="EUR", amount="300")
    page = boss.get(url(dealer_table)).content.decode()
    assert "Shift in EUR since" in page and "5500.00" in page  # the tray should hold 5,000 + 1,000 - 200 - 300
    assert "Chip tray" not in dealer.get(url(dealer_table)).content.decode()

    page = step(boss, dealer_table, "tray_count", currency="EUR", amount="5490")
    assert "Shift closed: 5490.00 EUR counted; win -10.00, variance -10.00." in page  # no bets: 10 went astray
    assert ledger_check().ok and not settlement_check().problems


def test_tray_steps_refuse_bad_input_and_change_nothing(dealer_table):
    boss = staff_client("pia", PIT_BOSS)
    for data, message in (
        ({"currency": "USD", "amount": "10"}, "has no limits in &#x27;USD&#x27;"),
        ({"currency": "EUR", "amount": "abc"}, "Write the amount in digits"),
        ({"currency": "EUR"}, "This field is required"),
    ):
        assert message in step(boss, dealer_table, "tray_count", **data)
    assert not Account.objects.filter(kind=Account.Kind.CHIP_TRAY).exists()
    assert "No shift open" in boss.get(url(dealer_table)).content.decode()


def test_the_console_says_who_shows_each_hand_and_takes_the_showing_steps(dealer, dealer_table, pit_boss):
    """Seed 000 §5.1: "Player hand to seat 3"; §5.1.7 the dealer's step; §5.1.4 the pit's, for a lone customer."""
    coup = CoupFactory(table=dealer_table)
    session = patron_seat(table=dealer_table, seat_number=3, actor=pit_boss, guest_name="grey")
    tray_count(table=dealer_table, currency="EUR", counted="10000", actor=pit_boss)
    seat_bets_place(coup=coup, seat_session=session, bets={"player": "100.00"}, actor=pit_boss)
    lifecycle.coup_close_betting(coup=coup)
    page = dealer.get(url(dealer_table)).content.decode()
    assert "Player hand to seat 3 (grey)" in page and "Banker hand: the dealer shows" in page
    assert "The lone customer sees the Banker first" not in page  # the pit's to allow
    assert (
        dealer.post(url(dealer_table, "banker_shown_first"), {"round_id": coup.round_id, "hand": "banker"}).status_code
        == 403
    )

    boss = staff_client("pia", PIT_BOSS)
    page = step(boss, dealer_table, "banker_shown_first", round_id=coup.round_id, hand="banker")
    assert "The Banker hand is shown first (seed 000 §5.1.4)." in page
    assert page.index("Banker hand: the dealer shows") < page.index("Player hand to seat 3")
    page = step(dealer, dealer_table, "hand_shown_by_dealer", round_id=coup.round_id, hand="player")
    assert "The dealer shows the Player hand (seed 000 §5.1.7)" in page and "Player hand: the dealer shows" in page
    page = step(dealer, dealer_table, "hand_shown_by_dealer", round_id="D1-STALE", hand="banker")
    assert "the page was out of date" in page


def test_over_the_differential_the_console_proposes_the_reduction_or_the_pits_override(dealer, dealer_table):
    """Seed 000 §6.1.2: the console shows by how much and the proportional reduction per seat; the dealer
    applies it, or a pit boss accepts the chips within their authority (twice the differential), audited."""
    LimitSet.objects.filter(table=dealer_table).update(max_differential=D("1000.00"))
    coup = CoupFactory(table=dealer_table)
    boss = staff_client("pia", PIT_BOSS)
    first = patron_seat(table=dealer_table, seat_number=1, actor=boss.user, guest_name="first")
    second = patron_seat(table=dealer_table, seat_number=2, actor=boss.user, guest_name="second")
    tray_count(table=dealer_table, currency="EUR", counted="10000", actor=boss.user)
    seat_bets_place(coup=coup, seat_session=first, bets={"banker": "800.00"}, actor=boss.user)
    entry = {"session": second.pk, "round_id": coup.round_id, "bet_type": "banker", "stake": "700"}

    page = step(dealer, dealer_table, "seat_bet", **entry)
    assert "Proposed proportional reduction (seed 000 §6.1.2), 500.00 EUR too much on Banker: " in page
    assert "seat 1 800.00 → 533.33, seat 2 700.00 → 466.66" in page and "Pit override" not in page
    page = step(dealer, dealer_table, "seat_bets_reduce", **entry)
    assert "Reduced (seed 000 §6.1.2): seat 1 800.00 → 533.33, seat 2 700.00 → 466.66." in page
    assert coup_bet_totals(coup=coup, currency="EUR") == {"banker": D("999.99")}

    third = patron_seat(table=dealer_table, seat_number=3, actor=boss.user, guest_name="third")
    over = {"session": third.pk, "round_id": coup.round_id, "bet_type": "banker", "stake": "900"}
    assert "Pit override: accept the chips as entered" in step(boss, dealer_table, "seat_bet", **over)
    assert dealer.post(url(dealer_table, "seat_bet_override"), over).status_code == 403
    page = step(boss, dealer_table, "seat_bet_override", **over)
    assert "Seat 3: 900.00 on Banker, accepted by the pit." in page
    assert AuditLog.objects.get(action="differential_overridden").after["differential"] == "1899.99"
    too_far = {**over, "session": first.pk, "stake": "200"}  # past twice the differential: beyond the pit's authority
    assert "over the table&#x27;s maximum differential of 2000.00" in step(
        boss, dealer_table, "seat_bet_override", **too_far
    )


def test_the_console_says_when_the_seats_chips_wait_for_a_shift(dealer, dealer_table, betting):
    """Seated chips are played only in a shift: before the dealer enters any, the console says none is open in
    a seated patron's currency, and stops saying so once the pit boss has counted the tray."""
    page = dealer.get(url(dealer_table)).content.decode()
    assert "data-no-shift" not in page  # nobody seated: nothing waits
    patron_seat(table=dealer_table, seat_number=4, actor=dealer.user, guest_name="lady in red")
    page = dealer.get(url(dealer_table)).content.decode()
    assert "No shift open in EUR: the seats' chips wait for the pit boss to count the tray." in page
    step(staff_client("pia", PIT_BOSS), dealer_table, "tray_count", currency="EUR", amount="10000")
    assert "data-no-shift" not in dealer.get(url(dealer_table)).content.decode()
