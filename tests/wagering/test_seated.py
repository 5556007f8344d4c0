"""Seated play at a dealer table (issue 18, seed 000 §1.1, §6.1): a seated patron's chips are bets of the
coup under the same rules as online bets, and settle to chips (the table's tray), never to a wallet."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages

from casino import lifecycle
from casino.lifecycle.settlement import coup_settle
from tables import corrections
from tables.limit_sets import limit_set_create
from tables.models import Coup, LimitSet, ResultCorrection
from tables.roles import PIT_BOSS, roles_ensure
from tables.seating import patron_seat, patron_unseat
from tables.services import limit_marker_grant
from tests.factories import CoupFactory, coup_deal_and_resolve, staff_client
from tests.tables.conftest import run_action
from tests.wagering.conftest import fund
from wagering.checks import ledger_check, settlement_check
from wagering.chip_reports import shift_report
from wagering.chips import seat_buy_in, tray_count
from wagering.errors import BetRejected, ChipsRefused
from wagering.models import Account, Bet, BetSettlement, LedgerTransaction, TrayCount
from wagering.placement import bet_batch_place
from wagering.protection.services import protection_break_take
from wagering.reports import table_day_report_build
from wagering.seated import differential_reduction, seat_bets_place, seat_bets_reduce
from wagering.selectors import coup_bet_totals, wallet_balance

pytestmark = pytest.mark.django_db
BANKER_NATURAL = "2S 9H 3D KC"  # in dealing order: Player 2+3 = 5, Banker 9+K = 9: Banker wins


@pytest.fixture
def coup(dealer_table, pit_boss):
    """A coup taking bets in a shift: seated chips are played only once the tray is counted."""
    LimitSet.objects.filter(table=dealer_table).update(max_differential=D("1500.00"))
    tray_count(table=dealer_table, currency="EUR", counted="10000.00", actor=pit_boss)
    return CoupFactory(table=dealer_table)


@pytest.fixture
def guest(dealer_table, pit_boss):
    return patron_seat(table=dealer_table, seat_number=3, actor=pit_boss, guest_name="guest in grey")


@pytest.fixture
def online(db):
    player = get_user_model().objects.create_user(username="online")
    fund(player, "1000.00")
    return player


def account(kind: str) -> D:
    return Account.objects.filter(kind=kind).values_list("balance", flat=True).first() or D("0.00")


def rejected(code: str, **kwargs) -> None:
    bets, legs = Bet.objects.count(), LedgerTransaction.objects.count()
    with pytest.raises(BetRejected) as refusal:
        seat_bets_place(**kwargs)
    assert refusal.value.code == code
    assert (Bet.objects.count(), LedgerTransaction.objects.count()) == (bets, legs)


def test_seated_chips_count_in_the_coups_totals_and_its_differential(coup, guest, pit_boss, online):
    """Seed 000 §6.1: the maximum differential is the table's, seated and online bets together."""
    seat_bets_place(coup=coup, seat_session=guest, bets={"banker": "1000.00"}, actor=pit_boss)
    assert coup_bet_totals(coup=coup, currency="EUR") == {"banker": D("1000.00")}

    with pytest.raises(BetRejected) as refusal:  # 1,600 more on the Banker than on the Player
        bet_batch_place(user=online, coup=coup, bets={"banker": "600.00"})
    assert refusal.value.code == "max_differential"
    bet_batch_place(user=online, coup=coup, bets={"player": "400.00"})
    assert coup_bet_totals(coup=coup, currency="EUR") == {"banker": D("1000.00"), "player": D("400.00")}
    # And the other way round: the seat is refused what would break the differential online bets leave.
    other = patron_seat(table=coup.table, seat_number=4, actor=pit_boss, guest_name="other")
    rejected("max_differential", coup=coup, seat_session=other, bets={"banker": "1000.00"}, actor=pit_boss)


def test_a_seated_players_marker_applies_to_their_chips(coup, pit_boss):
    """Seed 000: a personal limit marker is given to a seated customer."""
    player = get_user_model().objects.create_user(username="highroller")
    limit_marker_grant(table=coup.table, player=player, minimum="200.00", maximum="1400.00", actor=pit_boss)
    session = patron_seat(table=coup.table, seat_number=1, actor=pit_boss, player=player)

    rejected("below_minimum", coup=coup, seat_session=session, bets={"banker": "100.00"}, actor=pit_boss)
    placed = seat_bets_place(coup=coup, seat_session=session, bets={"banker": "1400.00"}, actor=pit_boss)
    assert placed.seat_totals == {"banker": D("1400.00")}  # past the table's 1,000, within the marker
    assert wallet_balance(user=player) == D("0.00")  # chips, not the wallet


def test_one_seat_may_not_bet_player_and_banker(coup, guest, pit_boss):
    seat_bets_place(coup=coup, seat_session=guest, bets={"player": "50.00"}, actor=pit_boss)
    rejected("player_and_banker", coup=coup, seat_session=guest, bets={"banker": "50.00"}, actor=pit_boss)


def test_chips_of_a_patron_who_left_or_sits_elsewhere_are_refused(coup, guest, pit_boss, auto_table):
    patron_unseat(session=guest, actor=pit_boss)
    rejected("not_seated", coup=coup, seat_session=guest, bets={"banker": "10.00"}, actor=pit_boss)
    elsewhere = patron_seat(table=coup.table, seat_number=2, actor=pit_boss, guest_name="b")
    other_coup = CoupFactory(table=auto_table)
    rejected("not_seated", coup=other_coup, seat_session=elsewhere, bets={"banker": "10.00"}, actor=pit_boss)


def test_chips_after_no_more_bets_are_refused(coup, guest, pit_boss):
    Coup.objects.filter(pk=coup.pk).update(state=Coup.State.NO_MORE_BETS)
    rejected("betting_closed", coup=coup, seat_session=guest, bets={"banker": "10.00"}, actor=pit_boss)


def settle_banker_natural(coup):
    coup_deal_and_resolve(coup, BANKER_NATURAL)
    coup_settle(coup_id=coup.pk)


def test_seated_bets_settle_to_the_tray_and_online_bets_to_the_house(coup, guest, pit_boss, online):
    second = patron_seat(table=coup.table, seat_number=8, actor=pit_boss, guest_name="lady in blue")
    seat_bets_place(coup=coup, seat_session=guest, bets={"banker": "100.00"}, actor=pit_boss)
    seat_bets_place(coup=coup, seat_session=second, bets={"player": "50.00", "tie": "10.00"}, actor=pit_boss)
    bet_batch_place(user=online, coup=coup, bets={"banker": "20.00"})
    settle_banker_natural(coup)

    returned = dict(Bet.objects.filter(seat_session=guest).values_list("bet_type", "settlement__returned"))
    assert returned == {"banker": D("195.00")}
    assert set(BetSettlement.objects.filter(bet__seat_session=second).values_list("outcome", flat=True)) == {"lose"}
    # The tray paid the seats' net win (95 - 60 = 35); the house paid the online player's 19.
    assert account(Account.Kind.CHIP_TRAY) == D("-35.00")
    assert account(Account.Kind.PATRON_CHIPS) == D("35.00")
    assert account(Account.Kind.HOUSE) == D("-19.00")
    assert wallet_balance(user=online) == D("1019.00")
    assert ledger_check().ok and not settlement_check().problems


def test_a_void_gives_the_seats_their_chips_back(coup, guest, pit_boss):
    seat_bets_place(coup=coup, seat_session=guest, bets={"banker": "100.00"}, actor=pit_boss)
    lifecycle.coup_void(coup=coup, actor=pit_boss, reason="shoe dropped")

    assert Bet.objects.get(seat_session=guest).state == Bet.State.REFUNDED
    assert (account(Account.Kind.PATRON_CHIPS), account(Account.Kind.CHIP_TRAY)) == (D("0.00"), D("0.00"))
    assert ledger_check().ok and not settlement_check().problems


def test_a_result_correction_resettles_the_seats_through_the_tray(coup, guest, pit_boss):
    second = patron_seat(table=coup.table, seat_number=8, actor=pit_boss, guest_name="lady in blue")
    seat_bets_place(coup=coup, seat_session=guest, bets={"banker": "100.00"}, actor=pit_boss)
    seat_bets_place(coup=coup, seat_session=second, bets={"player": "50.00"}, actor=pit_boss)
    settle_banker_natural(coup)
    bosses = [get_user_model().objects.create_user(username=name, is_staff=True) for name in ("ana", "ben")]
    for boss in bosses:
        boss.groups.add(roles_ensure()[PIT_BOSS])
    correction = corrections.result_correction_request(
        coup=coup, player_cards="9S KD", banker_cards="2H 3C", reason="cards misread", actor=bosses[0]
    )
    lifecycle.result_correction_approve(correction=correction, actor=bosses[1])

    # Player wins after all: the banker's 100 is lost, the player's 50 returns 100. The tray holds 150 - 100.
    assert account(Account.Kind.CHIP_TRAY) == D("50.00")
    assert account(Account.Kind.PATRON_CHIPS) == D("-50.00")
    assert ledger_check().ok and not settlement_check().problems


def test_a_correction_paying_seats_after_the_shift_closed_waits_for_the_next_shift(coup, guest, pit_boss):
    """The tray pays a seated patron's chips only in a shift, so every chip it moves is in a shift's report."""
    seat_bets_place(coup=coup, seat_session=guest, bets={"banker": "100.00"}, actor=pit_boss)
    settle_banker_natural(coup)
    tray_count(table=coup.table, currency="EUR", counted="9905.00", actor=pit_boss)  # the shift closes
    ana, ben = staff_client("ana", PIT_BOSS), staff_client("ben", PIT_BOSS)
    correction = corrections.result_correction_request(
        coup=coup, player_cards="9S KD", banker_cards="2H 3C", reason="cards misread", actor=ana.user
    )
    before = (account(Account.Kind.CHIP_TRAY), LedgerTransaction.objects.count(), coup.winner)
    with pytest.raises(ChipsRefused) as refusal:
        lifecycle.result_correction_approve(correction=correction, actor=ben.user)
    assert refusal.value.code == "no_open_shift"
    response = run_action(ben, ResultCorrection, "approve_corrections", [correction], reason="approved")
    assert [str(message) for message in get_messages(response.wsgi_request)] == [
        f"Nothing was changed: the correction pays seated patrons' chips at table {coup.table.code} in EUR from the"
        " tray, and no shift is open there: a pit boss counts the tray first"
    ]
    coup.refresh_from_db()
    correction.refresh_from_db()
    assert (account(Account.Kind.CHIP_TRAY), LedgerTransaction.objects.count(), coup.winner) == before
    assert correction.state == correction.State.PENDING

    opening = tray_count(table=coup.table, currency="EUR", counted="9905.00", actor=pit_boss)  # the next shift
    lifecycle.result_correction_approve(correction=correction, actor=ben.user)
    report = shift_report(opening=opening)
    # The Banker's 100 lost after all: the 195 it was paid (stake and win) goes back to the tray, in this shift.
    assert (report.seated_win, report.tray_now) == (D("195.00"), D("10100.00"))
    assert ledger_check().ok and not settlement_check().problems


def test_seats_over_the_differential_are_offered_a_proportional_reduction(coup, pit_boss):
    """Seed 000 §6.1.2: players are invited to lower their bets proportionately to within the differential."""
    seats = [patron_seat(table=coup.table, seat_number=n, actor=pit_boss, guest_name=f"seat {n}") for n in (1, 2, 3)]
    seat_bets_place(coup=coup, seat_session=seats[0], bets={"banker": "1000.00"}, actor=pit_boss)
    seat_bets_place(coup=coup, seat_session=seats[1], bets={"banker": "400.00", "tie": "10.00"}, actor=pit_boss)
    entry = {"banker": "600.00"}
    rejected("max_differential", coup=coup, seat_session=seats[2], bets=entry, actor=pit_boss)

    proposal = differential_reduction(coup=coup, seat_session=seats[2], bets=entry)
    assert (proposal.hand, proposal.over_by) == ("banker", D("500.00"))  # 2,000 against a limit of 1,500
    assert proposal.stakes == {
        seats[0].pk: (D("1000.00"), D("750.00")),
        seats[1].pk: (D("400.00"), D("300.00")),
        seats[2].pk: (D("600.00"), D("450.00")),
    }
    seat_bets_reduce(coup=coup, seat_session=seats[2], bets=entry, actor=pit_boss)
    assert coup_bet_totals(coup=coup, currency="EUR") == {"banker": D("1500.00"), "tie": D("10.00")}
    standing = Bet.objects.filter(state=Bet.State.ACCEPTED, bet_type="banker").order_by("seat_session__seat__number")
    assert [bet.stake for bet in standing] == [D("750.00"), D("300.00"), D("450.00")]
    assert Bet.objects.get(bet_type="tie").state == Bet.State.ACCEPTED  # the other boxes stay as they were
    assert account(Account.Kind.PATRON_CHIPS) == D("-1510.00")
    assert ledger_check().ok and not settlement_check(finished=False).problems


def test_no_reduction_when_online_bets_alone_break_the_differential(coup, pit_boss, online):
    bet_batch_place(user=online, coup=coup, bets={"banker": "1000.00"})
    other = get_user_model().objects.create_user(username="other_online")
    fund(other, "1000.00")
    bet_batch_place(user=other, coup=coup, bets={"banker": "500.00"})
    seat = patron_seat(table=coup.table, seat_number=1, actor=pit_boss, guest_name="late")
    assert differential_reduction(coup=coup, seat_session=seat, bets={"banker": "100.00"}) is None
    with pytest.raises(BetRejected) as refusal:
        seat_bets_reduce(coup=coup, seat_session=seat, bets={"banker": "100.00"}, actor=pit_boss)
    assert refusal.value.code == "no_reduction"


def test_chips_are_played_only_in_a_shift_in_their_currency(dealer_table, guest, pit_boss):
    """A dealer table takes seated chips only while its tray is counted into a shift in their currency, and the
    shift closes only once they are settled: every seated bet is in a shift's report."""
    coup = CoupFactory(table=dealer_table)
    rejected("no_open_shift", coup=coup, seat_session=guest, bets={"banker": "100.00"}, actor=pit_boss)
    limit_set_create(table=dealer_table, actor=pit_boss, currency="USD", max_differential="5000")
    tray_count(table=dealer_table, currency="USD", counted="1000.00", actor=pit_boss)
    rejected("no_open_shift", coup=coup, seat_session=guest, bets={"banker": "100.00"}, actor=pit_boss)  # EUR chips
    opening = tray_count(table=dealer_table, currency="EUR", counted="1000.00", actor=pit_boss)
    seat_bets_place(coup=coup, seat_session=guest, bets={"banker": "100.00"}, actor=pit_boss)

    counts = TrayCount.objects.count()
    with pytest.raises(ChipsRefused) as refusal:
        tray_count(table=dealer_table, currency="EUR", counted="1000.00", actor=pit_boss)
    assert refusal.value.code == "chips_in_play" and TrayCount.objects.count() == counts
    tray_count(table=dealer_table, currency="USD", counted="1000.00", actor=pit_boss)  # no dollar chips in play
    settle_banker_natural(coup)
    tray_count(table=dealer_table, currency="EUR", counted="905.00", actor=pit_boss)
    report = shift_report(opening=opening)
    assert (report.seated_win, report.count_win, report.variance) == (D("-95.00"), D("-95.00"), D("0.00"))


def test_the_tables_day_report_counts_seated_and_online_bets(coup, guest, pit_boss, online):
    known = patron_seat(
        table=coup.table, seat_number=5, actor=pit_boss, player=get_user_model().objects.create_user(username="kim")
    )
    seat_bets_place(coup=coup, seat_session=guest, bets={"banker": "100.00"}, actor=pit_boss)  # returns 195
    seat_bets_place(coup=coup, seat_session=known, bets={"player": "40.00"}, actor=pit_boss)  # lost
    bet_batch_place(user=online, coup=coup, bets={"player": "30.00"})  # lost
    settle_banker_natural(coup)

    (report,) = table_day_report_build(table_id=coup.table_id, day=coup.opened_at.date())
    assert (report.coups, report.bets, report.staked, report.returned) == (1, 3, D("170.00"), D("195.00"))
    assert (report.house_win, report.hold_percent) == (D("-25.00"), D("-14.71"))  # -25 / 170
    assert report.players == 3  # online, the seated player and the guest's session


def test_a_known_player_on_a_break_from_play_plays_no_chips_and_buys_none(coup, pit_boss, online):
    """A time-out or a self-exclusion holds at the felt too (issue 31): the seated known player's chips and
    buy-ins are refused with its code, nothing written."""
    session = patron_seat(table=coup.table, seat_number=2, actor=pit_boss, player=online)
    seat_buy_in(seat_session=session, amount="100.00", actor=pit_boss)
    protection_break_take(user=online, kind="time_out", duration="24h")
    rejected("timed_out", coup=coup, seat_session=session, bets={"banker": "10.00"}, actor=pit_boss)
    movements = LedgerTransaction.objects.count()
    with pytest.raises(BetRejected) as refusal:
        seat_buy_in(seat_session=session, amount="100.00", actor=pit_boss)
    assert refusal.value.code == "timed_out" and LedgerTransaction.objects.count() == movements
