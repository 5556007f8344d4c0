"""The ratings report (issue 18): seated sessions added up per known patron and per table and day, each
currency apart, guests counted by session; every figure checked to the cent against sums worked out here."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal as D
from fractions import Fraction

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from baccarat.odds import ShoeComposition, analyze
from casino.lifecycle.settlement import coup_settle
from tables.limit_sets import limit_set_create
from tables.models import Coup, SeatSession
from tables.seating import patron_seat, patron_unseat
from tables.selectors import coup_rules
from tables.services import table_create, table_open
from tests.factories import CoupFactory, coup_deal_and_resolve
from wagering.chips import seat_buy_in, tray_count
from wagering.rating_reports import ratings_report
from wagering.seated import seat_bets_place

pytestmark = pytest.mark.django_db
BANKER_NATURAL = "2S 9H 3D KC"  # Player 5, Banker 9: Banker wins, 100 on it returns 195


def cents(value: Fraction) -> D:
    return (D(value.numerator) / value.denominator).quantize(D("0.01"))


def play(table, bets_by_session: dict, actor) -> Coup:
    """One coup at the table: each session's chips, a Banker natural, settled."""
    coup = CoupFactory(table=table)
    for session, bets in bets_by_session.items():
        seat_bets_place(coup=coup, seat_session=session, bets=bets, actor=actor)
    coup_deal_and_resolve(coup, BANKER_NATURAL)
    coup_settle(coup_id=coup.pk)
    return coup


def timed(session: SeatSession, start, minutes: int) -> None:
    SeatSession.objects.filter(pk=session.pk).update(started_at=start, ended_at=start + timedelta(minutes=minutes))


@pytest.fixture
def floor(dealer_table, pit_boss):
    """alice at d1 (two coups) and again at d2 the day before; two guests at d1; bob in dollars at d1."""
    limit_set_create(table=dealer_table, actor=pit_boss, currency="USD", max_differential="5000")
    second = table_open(
        table=table_create(code="d2", name="Dealer 2", actor=pit_boss, dealing_mode="dealer"), actor=pit_boss
    )
    for table, currency in ((dealer_table, "EUR"), (dealer_table, "USD"), (second, "EUR")):
        tray_count(table=table, currency=currency, counted="10000", actor=pit_boss)
    users = get_user_model().objects
    alice, bob = (users.create_user(username=name) for name in ("alice", "bob"))
    first = patron_seat(table=dealer_table, seat_number=1, actor=pit_boss, player=alice)
    grey = patron_seat(table=dealer_table, seat_number=3, actor=pit_boss, guest_name="grey")
    blue = patron_seat(table=dealer_table, seat_number=4, actor=pit_boss, guest_name="blue")
    dollars = patron_seat(table=dealer_table, seat_number=5, actor=pit_boss, player=bob, currency="USD")
    seat_buy_in(seat_session=first, amount="500", actor=pit_boss)
    seat_buy_in(seat_session=grey, amount="100", actor=pit_boss)
    seat_buy_in(seat_session=dollars, amount="80", actor=pit_boss)
    coup = play(
        dealer_table, {first: {"banker": "100.00"}, grey: {"player": "30.00"}, dollars: {"banker": "20.00"}}, pit_boss
    )
    play(dealer_table, {first: {"player": "50.00", "tie": "10.00"}}, pit_boss)
    for session in (first, grey, blue, dollars):
        patron_unseat(session=session, actor=pit_boss)
    again = patron_seat(table=second, seat_number=2, actor=pit_boss, player=alice)
    seat_buy_in(seat_session=again, amount="200", actor=pit_boss)
    play(second, {again: {"banker": "40.00"}}, pit_boss)
    patron_unseat(session=again, actor=pit_boss)
    today = timezone.now().replace(hour=12, minute=0, second=0, microsecond=0)
    for session, start, minutes in (
        (first, today, 45),
        (grey, today, 30),
        (blue, today, 5),
        (dollars, today, 20),
        (again, today - timedelta(days=1), 61),
    ):
        timed(session, start, minutes)
    analysis = analyze(ShoeComposition.full(8), paytables=coup_rules(coup=coup).table.paytables())
    edge = {bet: odds.house_edge for bet, odds in analysis.bets.items()}
    return {"today": today.date(), "d1": dealer_table, "d2": second, "edge": edge}


def test_a_patrons_totals_add_up_their_sessions_per_currency(floor):
    edge = floor["edge"]
    rows = ratings_report(since=floor["today"] - timedelta(days=1), until=floor["today"]).patrons
    assert [(row.patron, row.currency) for row in rows] == [("alice", "EUR"), ("bob", "USD")]  # no guest
    alice, bob = (row.totals for row in rows)
    # Each session's theoretical win rounded to the cent, as the Seat sessions list shows it, then added.
    first_theo = cents(100 * edge["banker"] + 50 * edge["player"] + 10 * edge["tie"])
    again_theo = cents(40 * edge["banker"])
    assert (alice.sessions, alice.minutes, alice.buy_in, alice.hands) == (2, 106, D("700.00"), 3)
    assert (alice.staked, alice.average_bet) == (D("200.00"), D("66.67"))  # 200 over 3 hands, whatever the sessions
    assert alice.theoretical_win == first_theo + again_theo == D("3.53")  # 3.11 + 0.42
    assert alice.actual_win == D("-73.00")  # (160 - 195) + (40 - 78)
    assert (bob.sessions, bob.minutes, bob.buy_in, bob.hands, bob.staked) == (1, 20, D("80.00"), 1, D("20.00"))
    assert (bob.theoretical_win, bob.actual_win) == (cents(20 * edge["banker"]), D("-19.00"))


def test_a_table_days_totals_count_guests_by_session(floor):
    edge = floor["edge"]
    rows = ratings_report(since=floor["today"] - timedelta(days=1), until=floor["today"]).table_days
    keys = [(row.table.code, row.day, row.currency) for row in rows]
    yesterday = floor["today"] - timedelta(days=1)
    assert keys == [("d1", floor["today"], "EUR"), ("d1", floor["today"], "USD"), ("d2", yesterday, "EUR")]
    euros, dollars, second = rows
    assert (euros.players, euros.guests) == (1, 2)
    totals = euros.totals
    assert (totals.sessions, totals.minutes, totals.buy_in, totals.hands) == (3, 80, D("600.00"), 3)
    assert (totals.staked, totals.average_bet) == (D("190.00"), D("63.33"))
    theoretical = cents(100 * edge["banker"] + 50 * edge["player"] + 10 * edge["tie"]) + cents(30 * edge["player"])
    assert (totals.theoretical_win, totals.actual_win) == (theoretical, D("-5.00"))  # -35 from alice, 30 from grey
    assert (dollars.players, dollars.guests, dollars.totals.actual_win) == (1, 0, D("-19.00"))
    assert (second.players, second.guests, second.totals.minutes, second.totals.actual_win) == (1, 0, 61, D("-38.00"))


def test_the_days_and_the_table_chosen_narrow_the_report(floor):
    today = floor["today"]
    assert [row.totals.sessions for row in ratings_report(since=today, until=today).patrons] == [1, 1]  # alice, bob
    only_d2 = ratings_report(since=today - timedelta(days=7), until=today, table_id=floor["d2"].pk)
    assert [(row.table.code, row.totals.staked) for row in only_d2.table_days] == [("d2", D("40.00"))]
    assert [row.patron for row in only_d2.patrons] == ["alice"]
    later = ratings_report(since=today + timedelta(days=1), until=today + timedelta(days=2))
    assert (later.patrons, later.table_days) == ([], [])
