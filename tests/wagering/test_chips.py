"""A dealer table's chip tray (issue 18): shifts opened and closed by counts, buy-ins, fills and credits on the
ledger, the shift's drop, win and hold with seated and online play, and the seated patrons' ratings."""

from __future__ import annotations

from decimal import Decimal as D
from fractions import Fraction

import pytest
from django.contrib.auth import get_user_model

from baccarat.odds import ShoeComposition, analyze
from casino.lifecycle.settlement import coup_settle
from tables.seating import patron_seat
from tables.selectors import coup_rules
from tests.factories import CoupFactory, coup_deal_and_resolve
from tests.wagering.conftest import fund
from wagering.checks import ledger_check, settlement_check
from wagering.chip_reports import seat_session_ratings, shift_report
from wagering.chips import seat_buy_in, tray_count, tray_credit, tray_fill
from wagering.errors import ChipsRefused
from wagering.models import Account, ChipMovement, LedgerTransaction, TrayCount
from wagering.placement import bet_batch_place
from wagering.seated import seat_bets_place

pytestmark = pytest.mark.django_db
BANKER_NATURAL = "2S 9H 3D KC"  # Player 5, Banker 9: Banker wins


@pytest.fixture
def guest(dealer_table, pit_boss):
    return patron_seat(table=dealer_table, seat_number=4, actor=pit_boss, guest_name="guest")


def refused(code: str, call, **kwargs) -> None:
    rows = (ChipMovement.objects.count(), TrayCount.objects.count(), LedgerTransaction.objects.count())
    with pytest.raises(ChipsRefused) as refusal:
        call(**kwargs)
    assert refusal.value.code == code
    assert (ChipMovement.objects.count(), TrayCount.objects.count(), LedgerTransaction.objects.count()) == rows


def test_chips_move_only_in_a_counted_shift(dealer_table, pit_boss, guest):
    refused("no_open_shift", tray_fill, table=dealer_table, currency="EUR", amount="1000", actor=pit_boss)
    refused("no_open_shift", seat_buy_in, seat_session=guest, amount="100", actor=pit_boss)
    opening = tray_count(table=dealer_table, currency="EUR", counted="20000.00", actor=pit_boss)
    assert opening.kind == TrayCount.Kind.OPENING
    closing = tray_count(table=dealer_table, currency="EUR", counted="20000.00", actor=pit_boss)
    assert (closing.kind, closing.opening) == (TrayCount.Kind.CLOSING, opening)
    refused("no_open_shift", tray_credit, table=dealer_table, currency="EUR", amount="10", actor=pit_boss)


@pytest.mark.parametrize(
    ("code", "call", "extra"),
    [
        ("currency_not_offered", tray_fill, {"currency": "USD", "amount": "10"}),
        ("invalid_amount", tray_fill, {"currency": "EUR", "amount": "-5"}),
        ("invalid_amount", tray_fill, {"currency": "EUR", "amount": "1e3"}),
        ("not_enough_chips", tray_credit, {"currency": "EUR", "amount": "1000.01"}),
    ],
)
def test_bad_movements_are_refused_and_change_nothing(dealer_table, pit_boss, code, call, extra):
    tray_count(table=dealer_table, currency="EUR", counted="1000.00", actor=pit_boss)
    refused(code, call, table=dealer_table, actor=pit_boss, **extra)


def test_a_buy_in_cannot_take_more_chips_than_the_tray_holds(dealer_table, pit_boss, guest):
    tray_count(table=dealer_table, currency="EUR", counted="500.00", actor=pit_boss)
    refused("not_enough_chips", seat_buy_in, seat_session=guest, amount="500.01", actor=pit_boss)
    seat_buy_in(seat_session=guest, amount="500", actor=pit_boss)


def test_the_shift_report_has_the_drop_win_and_hold_of_seated_and_online_play(dealer_table, pit_boss, guest):
    """Win = drop + closing - opening + credits - fills, equal to what the tray won from the seated bets."""
    opening = tray_count(table=dealer_table, currency="EUR", counted="10000.00", actor=pit_boss)
    tray_fill(table=dealer_table, currency="EUR", amount="2000", actor=pit_boss)
    seat_buy_in(seat_session=guest, amount="300", actor=pit_boss)
    other = patron_seat(table=dealer_table, seat_number=6, actor=pit_boss, guest_name="other")
    seat_buy_in(seat_session=other, amount="200", actor=pit_boss)
    online = get_user_model().objects.create_user(username="online")
    fund(online, "100.00")
    coup = CoupFactory(table=dealer_table)
    seat_bets_place(coup=coup, seat_session=guest, bets={"player": "100.00"}, actor=pit_boss)  # loses 100
    seat_bets_place(coup=coup, seat_session=other, bets={"banker": "40.00"}, actor=pit_boss)  # wins 38
    bet_batch_place(user=online, coup=coup, bets={"player": "30.00"})  # loses 30
    coup_deal_and_resolve(coup, BANKER_NATURAL)
    coup_settle(coup_id=coup.pk)
    tray_credit(table=dealer_table, currency="EUR", amount="1500", actor=pit_boss)

    running = shift_report(opening=opening)
    assert (running.drop, running.fills, running.credits) == (D("500.00"), D("2000.00"), D("1500.00"))
    assert running.seated_win == D("62.00")
    assert running.tray_now == D("10062.00")  # 10,000 + 2,000 fill - 500 sold + 62 won - 1,500 credit
    assert (running.online_staked, running.online_win, running.table_win) == (D("30.00"), D("30.00"), D("92.00"))
    assert running.count_win is None

    tray_count(table=dealer_table, currency="EUR", counted="10050.00", actor=pit_boss)  # 12 short
    closed = shift_report(opening=opening)
    assert closed.count_win == D("50.00")  # 500 + 10,050 - 10,000 + 1,500 - 2,000
    assert closed.variance == D("-12.00")
    assert closed.hold_percent == D("12.40")  # 62 / 500
    balances = dict(Account.objects.filter(table=dealer_table).values_list("kind", "balance"))
    assert balances[Account.Kind.DROP_BOX] == D("500.00")
    assert Account.objects.get(kind=Account.Kind.CAGE).balance == D("-500.00")
    assert ledger_check().ok and not settlement_check().problems


def test_a_rating_has_the_hands_average_bet_and_theoretical_win_by_the_exact_edge(dealer_table, pit_boss, guest):
    tray_count(table=dealer_table, currency="EUR", counted="10000.00", actor=pit_boss)
    seat_buy_in(seat_session=guest, amount="300", actor=pit_boss)
    coups = []
    for bets in ({"banker": "100.00", "tie": "10.00"}, {"banker": "50.00"}):
        coups.append(CoupFactory(table=dealer_table))
        seat_bets_place(coup=coups[-1], seat_session=guest, bets=bets, actor=pit_boss)
        coup_deal_and_resolve(coups[-1], BANKER_NATURAL)
        coup_settle(coup_id=coups[-1].pk)

    rating = seat_session_ratings(sessions=[guest])[guest.pk]
    edges = analyze(ShoeComposition.full(8), paytables=coup_rules(coup=coups[0]).table.paytables()).bets
    theoretical = Fraction(150) * edges["banker"].house_edge + Fraction(10) * edges["tie"].house_edge
    assert (rating.hands, rating.staked, rating.average_bet, rating.buy_in) == (2, D("160.00"), D("80.00"), D("300.00"))
    assert rating.theoretical_win == D(theoretical.numerator / theoretical.denominator).quantize(D("0.01"))
    assert rating.theoretical_win == D("3.02")  # 150 x 1.058% + 10 x 14.36%
    assert rating.actual_win == D("-132.50")  # 160 staked, 195 + 97.50 returned
