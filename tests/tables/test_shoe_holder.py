"""The patrons' shoe at a big table (seed 002, issue 30): who holds it as coups are resolved, patrons sit down,
move and leave, and the holder passes or declines it; audited, told to the table on commit, and in the snapshot.
A whole shoe is played against a computation of the holder written here."""

from __future__ import annotations

from random import Random

import pytest
from django.db import transaction

from baccarat.replay import replay_shoe
from baccarat.shoe import new_shoe_order
from casino import lifecycle
from kernel.errors import ErrorCode
from roadmaps.selectors import table_snapshot
from tables.coups import coup_open
from tables.dealing import coup_deal_card
from tables.errors import TableError
from tables.models import AuditLog, SeatSession, Table
from tables.seating import patron_move, patron_seat, patron_unseat
from tables.selectors import coup_rules, table_shoe_holder_public
from tables.services import table_rules_update
from tables.shoe_holders import shoe_holder_decline, shoe_holder_pass
from tables.shoes import shoe_cut_card_out
from tests.factories import physical_shoe_start

# Cards dealt Player, Banker, Player, Banker: each a natural, so the coup ends after four cards.
WINNING_CARDS = {"banker": "2S 9H 3D KC", "player": "9S 2H KD 3C", "tie": "9D 9C KH KS"}


@pytest.fixture
def events(monkeypatch):
    """The ``shoe_holder`` events the table is sent, as the seat each names, once committed."""
    sent = []

    def send(*, table_code, event_type, data):
        assert event_type == "shoe_holder" and set(data) == {"seat"}
        transaction.on_commit(lambda: sent.append(data["seat"]))

    monkeypatch.setattr("tables.shoe_holders.table_event_send", send)
    return sent


def big_table(table: Table, actor, *, tie_shoe_stays: bool = True) -> Table:
    changes = {"patrons_hold_shoe": True, "tie_shoe_stays": tie_shoe_stays}
    return table_rules_update(table=table, actor=actor, changes=changes, reason="the big table")


def seat(table: Table, number: int, actor) -> SeatSession:
    return patron_seat(table=table, seat_number=number, actor=actor, guest_name=f"patron {number}")


def holder(table: Table) -> int | None:
    return table_shoe_holder_public(table=Table.objects.get(pk=table.pk))["seat"]


def play(table: Table, actor, winner: str):
    coup = coup_open(table=table, actor=actor)
    lifecycle.coup_close_betting(coup=coup, actor=actor)
    for card in WINNING_CARDS[winner].split():
        coup_deal_card(coup=coup, card=card, hand=None, actor=actor)
    coup = lifecycle.coup_resolve(coup=coup)
    assert coup.winner == winner
    return coup


def refused(code: ErrorCode, call, **kwargs) -> None:
    with pytest.raises(TableError) as refusal:
        call(**kwargs)
    assert refusal.value.code == code


@pytest.mark.django_db(transaction=True)
class TestTheCroupiersShoe:
    def test_by_default_the_croupier_holds_the_shoe_whatever_happens(self, dealer_table, pit_boss, events):
        """Mini-Baccarat (and every seed but 002's big table): nobody at the seats holds the shoe."""
        assert Table.objects.get(pk=dealer_table.pk).patrons_hold_shoe is False
        seat(dealer_table, 3, pit_boss)
        physical_shoe_start(table=dealer_table, actor=pit_boss, burn_card="5H")
        coup = play(dealer_table, pit_boss, "player")
        assert coup_rules(coup=coup).table.patrons_hold_shoe is False
        assert holder(dealer_table) is None and events == []
        assert not AuditLog.objects.filter(action="shoe_holder_moved").exists()
        refused(ErrorCode.CROUPIERS_SHOE, shoe_holder_pass, table=dealer_table, actor=pit_boss, seat_number=3)
        assert table_snapshot(table=dealer_table)["shoe_holder"] == {"seat": None}

    def test_an_rng_table_has_no_patrons_to_hold_the_shoe(self, auto_table, pit_boss):
        refused(
            ErrorCode.INVALID_RULES,
            table_rules_update,
            table=auto_table,
            actor=pit_boss,
            changes={"patrons_hold_shoe": True},
            reason="x",
        )
        assert Table.objects.get(pk=auto_table.pk).patrons_hold_shoe is False


@pytest.mark.django_db(transaction=True)
class TestThePatronsShoe:
    def test_turned_on_the_first_seat_takes_it_and_turned_off_the_croupier(self, dealer_table, pit_boss, events):
        seat(dealer_table, 7, pit_boss)
        seat(dealer_table, 4, pit_boss)
        big_table(dealer_table, pit_boss)
        assert holder(dealer_table) == 4 and events == [4]
        entry = AuditLog.objects.get(action="shoe_holder_moved")
        assert (entry.actor, entry.before, entry.after) == (pit_boss, {"seat": None}, {"seat": 4, "patron": "patron 4"})
        assert table_snapshot(table=Table.objects.get(pk=dealer_table.pk))["shoe_holder"] == {"seat": 4}
        table_rules_update(table=dealer_table, actor=pit_boss, changes={"patrons_hold_shoe": False}, reason="mini")
        assert holder(dealer_table) is None and events == [4, None]

    def test_the_first_patron_seated_takes_the_shoe_and_a_holder_who_leaves_passes_it(
        self, dealer_table, pit_boss, events
    ):
        big_table(dealer_table, pit_boss)
        assert holder(dealer_table) is None and events == []  # nobody seated: the croupier's
        nine = seat(dealer_table, 9, pit_boss)
        seat(dealer_table, 2, pit_boss)
        assert holder(dealer_table) == 9
        five = seat(dealer_table, 5, pit_boss)
        patron_unseat(session=nine, actor=pit_boss)
        assert holder(dealer_table) == 2  # round the table: after 9 (10 free) comes 2
        patron_move(session=SeatSession.objects.get(seat__number=2, ended_at=None), seat_number=8, actor=pit_boss)
        assert holder(dealer_table) == 8  # the holder takes the shoe along
        patron_unseat(session=five, actor=pit_boss)
        assert holder(dealer_table) == 8  # not the holder: nothing moves
        patron_unseat(session=SeatSession.objects.get(seat__number=8, ended_at=None), actor=pit_boss)
        assert holder(dealer_table) is None
        assert events == [9, 2, 8, None]
        assert AuditLog.objects.filter(action="shoe_holder_moved").count() == 4

    @pytest.mark.parametrize("tie_shoe_stays", [True, False])
    def test_the_shoe_stays_while_banker_wins_and_moves_right_when_it_loses(
        self, dealer_table, pit_boss, events, tie_shoe_stays
    ):
        for number in (3, 6, 10):
            seat(dealer_table, number, pit_boss)
        big_table(dealer_table, pit_boss, tie_shoe_stays=tie_shoe_stays)
        physical_shoe_start(table=dealer_table, actor=pit_boss, burn_card="5H")
        play(dealer_table, pit_boss, "banker")
        assert holder(dealer_table) == 3
        play(dealer_table, pit_boss, "player")
        assert holder(dealer_table) == 6
        play(dealer_table, pit_boss, "tie")
        assert holder(dealer_table) == (6 if tie_shoe_stays else 10)
        play(dealer_table, pit_boss, "player")
        assert holder(dealer_table) == (10 if tie_shoe_stays else 3)
        moved = AuditLog.objects.filter(action="shoe_holder_moved").order_by("pk").last()
        assert moved.actor is None and "the bank hand did not win" in moved.reason

    def test_the_holder_declines_before_dealing_and_passes_after(self, dealer_table, pit_boss, events):
        for number in (1, 4):
            seat(dealer_table, number, pit_boss)
        big_table(dealer_table, pit_boss)
        physical_shoe_start(table=dealer_table, actor=pit_boss, burn_card="5H")
        refused(ErrorCode.SHOE_NOT_DEALT, shoe_holder_pass, table=dealer_table, actor=pit_boss, seat_number=1)
        assert shoe_holder_decline(table=dealer_table, actor=pit_boss, seat_number=1).seat.number == 4
        refused(ErrorCode.PAGE_OUT_OF_DATE, shoe_holder_decline, table=dealer_table, actor=pit_boss, seat_number=1)
        play(dealer_table, pit_boss, "banker")
        refused(ErrorCode.SHOE_DEALT, shoe_holder_decline, table=dealer_table, actor=pit_boss, seat_number=4)
        patron_move(session=SeatSession.objects.get(seat__number=4, ended_at=None), seat_number=5, actor=pit_boss)
        refused(ErrorCode.SHOE_DEALT, shoe_holder_decline, table=dealer_table, actor=pit_boss, seat_number=5)
        coup = coup_open(table=dealer_table, actor=pit_boss)
        refused(ErrorCode.COUP_IN_PROGRESS, shoe_holder_pass, table=dealer_table, actor=pit_boss, seat_number=5)
        lifecycle.coup_void(coup=coup, actor=pit_boss, reason="a test")
        assert shoe_holder_pass(table=dealer_table, actor=pit_boss, seat_number=5).seat.number == 1
        patron_unseat(session=SeatSession.objects.get(seat__number=5, ended_at=None), actor=pit_boss)
        refused(ErrorCode.SHOE_HOLDER_ALONE, shoe_holder_decline, table=dealer_table, actor=pit_boss, seat_number=1)
        assert holder(dealer_table) == 1 and events == [1, 4, 5, 1]
        reasons = list(AuditLog.objects.filter(action="shoe_holder_moved").order_by("pk").values_list("reason"))
        assert reasons == [("the patrons hold the shoe",), ("declined",), ("the holder moved seats",), ("passed",)]


def right_of(seat_number: int, occupied) -> int | None:
    """The next occupied seat to the right, counted seat by seat (1 … 10, then 1): not back to the same seat."""
    step = seat_number
    for _ in range(9):
        step = step % 10 + 1
        if step in occupied:
            return step
    return None


class Expected:
    """The holder as the test works it out from what happens at the table, independently of the platform."""

    def __init__(self, tie_shoe_stays: bool) -> None:
        self.tie_shoe_stays = tie_shoe_stays
        self.occupied: set[int] = set()
        self.holder: int | None = None
        self.dealt = 0  # coups resolved since the shoe came to the holder
        self.moves: list[int | None] = []

    def give(self, seat_number: int | None) -> None:
        self.holder, self.dealt = seat_number, 0
        self.moves.append(seat_number)

    def coup(self, winner: str) -> None:
        if self.holder is None:
            return
        if winner == "banker" or (winner == "tie" and self.tie_shoe_stays):
            self.dealt += 1
        elif (right := right_of(self.holder, self.occupied)) is not None:
            self.give(right)
        else:
            self.dealt += 1  # alone: they keep it

    def seated(self, seat_number: int) -> None:
        self.occupied.add(seat_number)
        if self.holder is None:
            self.give(seat_number)

    def left(self, seat_number: int) -> None:
        if self.holder == seat_number:
            self.give(right_of(seat_number, self.occupied))
        self.occupied.discard(seat_number)

    def moved(self, was: int, now: int) -> None:
        self.occupied = (self.occupied - {was}) | {now}
        if self.holder == was:
            self.holder = now
            self.moves.append(now)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("tie_shoe_stays", [True, False])
def test_a_whole_shoe_with_patrons_coming_going_passing_and_declining(dealer_table, pit_boss, events, tie_shoe_stays):
    """Every coup of a shuffled eight-deck shoe dealt through the services, and between coups, at random (seeded),
    patrons sit down, move, leave, pass and decline the shoe: after each, the platform's holder is the test's."""
    rng = Random(3002 + tie_shoe_stays)
    expected = Expected(tie_shoe_stays)
    big_table(dealer_table, pit_boss, tie_shoe_stays=tie_shoe_stays)
    for number in (2, 5, 9):
        seat(dealer_table, number, pit_boss)
        expected.seated(number)
    order = new_shoe_order(8, rng=rng)  # seeded too: a random shoe sometimes gave only three passes
    replay = replay_shoe(order)
    shoe = physical_shoe_start(table=dealer_table, actor=pit_boss, burn_card=order[0].code)
    position = shoe.position
    moves_on_results = 0

    for number, result in enumerate(replay.coups, start=1):
        between_coups(dealer_table, pit_boss, rng, expected, carry=number % 12 == 6)
        coup = coup_open(table=dealer_table, actor=pit_boss)
        lifecycle.coup_close_betting(coup=coup, actor=pit_boss)
        first_four = [result.player[0], result.banker[0], result.player[1], result.banker[1]]
        for card in [*first_four, *result.player[2:], *result.banker[2:]]:
            position = deal(coup, card, shoe, position, pit_boss)
        before = expected.holder
        lifecycle.coup_resolve(coup=coup)
        expected.coup(result.winner)
        moves_on_results += expected.holder != before
        assert holder(dealer_table) == expected.holder, f"after coup {coup.number} ({result.winner})"
        assert Table.objects.get(pk=dealer_table.pk).shoe_holder_coups == expected.dealt

    assert len(replay.coups) > 60 and moves_on_results > 10
    assert events == expected.moves
    assert AuditLog.objects.filter(action="shoe_holder_moved").count() == len(expected.moves)
    declines = AuditLog.objects.filter(action="shoe_holder_moved", reason="declined").count()
    passes = AuditLog.objects.filter(action="shoe_holder_moved", reason="passed").count()
    moved = AuditLog.objects.filter(action="shoe_holder_moved", reason="the holder moved seats").count()
    assert declines > 3 and passes > 3 and moved > 0  # the shoe really was passed, declined and carried along


def deal(coup, card, shoe, position: int, actor) -> int:
    if position == shoe.cut_card_position:
        shoe_cut_card_out(shoe=shoe, actor=actor)
    coup_deal_card(coup=coup, card=card.code, hand=None, actor=actor)
    return position + 1


def between_coups(table: Table, actor, rng: Random, expected: Expected, *, carry: bool) -> None:
    """One thing, or none, happens at the table between two coups, as the dice say (``carry``: the holder moves
    seats, if a seat is free)."""
    roll = rng.random()
    occupied = sorted(expected.occupied)
    free = [number for number in range(1, 11) if number not in expected.occupied]
    if carry and free and expected.holder is not None:
        was, now = expected.holder, rng.choice(free)
        patron_move(
            session=SeatSession.objects.get(seat__number=was, ended_at=None, table=table), seat_number=now, actor=actor
        )
        expected.moved(was, now)
    elif roll < 0.15 and free:
        number = rng.choice(free)
        seat(table, number, actor)
        expected.seated(number)
    elif roll < 0.27 and len(occupied) > 1:
        number = rng.choice(occupied)
        patron_unseat(session=SeatSession.objects.get(seat__number=number, ended_at=None, table=table), actor=actor)
        expected.left(number)
    elif roll < 0.35 and occupied and free:
        was, now = rng.choice(occupied), rng.choice(free)
        patron_move(
            session=SeatSession.objects.get(seat__number=was, ended_at=None, table=table), seat_number=now, actor=actor
        )
        expected.moved(was, now)
    elif roll < 0.7 and expected.holder is not None and len(occupied) > 1:
        # The holder hands the shoe on: a decline before they deal a coup, a pass after (the other is refused).
        declining = expected.dealt == 0
        right, wrong = (shoe_holder_decline, shoe_holder_pass) if declining else (shoe_holder_pass, shoe_holder_decline)
        code = ErrorCode.SHOE_NOT_DEALT if declining else ErrorCode.SHOE_DEALT
        refused(code, wrong, table=table, actor=actor, seat_number=expected.holder)
        taker = right(table=table, actor=actor, seat_number=expected.holder)
        expected.give(right_of(expected.holder, expected.occupied))
        assert taker.seat.number == expected.holder
    assert holder(table) == expected.holder
