"""Who holds the shoe (seed 002's big table): checked over every seating of the ten seats, every holder, result
and tie setting against a walk round the table written here, and by properties over any seat numbers."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.coup import BANKER, PLAYER, TIE
from baccarat.shoe_holder import first_holder, holder_after_coup, holder_after_leaving, seat_on_the_right

SEATS = range(1, 11)
SEATINGS = [frozenset(chosen) for size in range(11) for chosen in combinations(SEATS, size)]


def walk_right(seat: int, occupied: frozenset[int]) -> int | None:
    """Step seat by seat to the right (1, 2, … 10, then 1 again) until a patron sits there; not back to ``seat``."""
    step = seat
    for _ in range(len(SEATS) - 1):
        step = step % len(SEATS) + 1
        if step in occupied:
            return step
    return None


def expected_after_coup(holder, occupied, winner, tie_shoe_stays):
    if holder is None:
        return None
    keeps = winner == BANKER or (winner == TIE and tie_shoe_stays)
    if keeps:
        return holder
    return walk_right(holder, occupied) or holder  # alone at the table: nobody else to take it


def test_the_next_seat_on_the_right_for_every_seating_of_the_ten_seats():
    for occupied in SEATINGS:
        for seat in SEATS:
            assert seat_on_the_right(seat, occupied) == walk_right(seat, occupied), (seat, sorted(occupied))


@pytest.mark.parametrize("tie_shoe_stays", [True, False])
@pytest.mark.parametrize("winner", [BANKER, PLAYER, TIE])
def test_the_holder_after_every_coup_of_every_seating(winner, tie_shoe_stays):
    for occupied in SEATINGS:
        for holder in [None, *sorted(occupied)]:
            after = holder_after_coup(holder=holder, occupied=occupied, winner=winner, tie_shoe_stays=tie_shoe_stays)
            assert after == expected_after_coup(holder, occupied, winner, tie_shoe_stays), (holder, sorted(occupied))


def test_the_holder_after_a_patron_leaves_every_seating():
    for occupied in SEATINGS:
        for holder in [None, *sorted(occupied)]:
            for leaving in sorted(occupied):
                after = holder_after_leaving(holder=holder, leaving=leaving, occupied=occupied)
                assert after == (walk_right(leaving, occupied) if holder == leaving else holder)
                assert after is None or (after in occupied and after != leaving)


def test_examples_from_the_floor():
    assert seat_on_the_right(10, {2, 5, 10}) == 2  # round the table
    assert seat_on_the_right(3, {2, 5, 10}) == 5
    assert seat_on_the_right(5, {5}) is None
    assert holder_after_coup(holder=5, occupied={2, 5, 10}, winner=BANKER, tie_shoe_stays=False) == 5
    assert holder_after_coup(holder=5, occupied={2, 5, 10}, winner=PLAYER, tie_shoe_stays=True) == 10
    assert holder_after_coup(holder=10, occupied={2, 5, 10}, winner=TIE, tie_shoe_stays=False) == 2
    assert holder_after_coup(holder=10, occupied={2, 5, 10}, winner=TIE, tie_shoe_stays=True) == 10
    assert holder_after_coup(holder=5, occupied={5}, winner=PLAYER, tie_shoe_stays=True) == 5
    assert first_holder({7, 3, 9}) == 3 and first_holder(set()) is None


def test_a_holder_who_is_not_seated_or_an_unknown_result_is_refused():
    with pytest.raises(ValueError, match="seat 4 holds the shoe but is not occupied"):
        holder_after_coup(holder=4, occupied={2, 5}, winner=PLAYER, tie_shoe_stays=True)
    with pytest.raises(ValueError, match="not 'bank'"):
        holder_after_coup(holder=2, occupied={2, 5}, winner="bank", tie_shoe_stays=True)


seatings = st.sets(st.integers(min_value=1, max_value=15), min_size=1)


@given(occupied=seatings, data=st.data())
def test_the_shoe_always_goes_to_the_nearest_other_patron_on_the_right(occupied, data):
    """Any seat numbers (a table of fifteen): the seat on the right is occupied, not the holder, and no occupied
    seat lies strictly between them going right."""
    seat = data.draw(st.integers(min_value=1, max_value=15))
    right = seat_on_the_right(seat, occupied)
    others = occupied - {seat}
    if not others:
        assert right is None
        return
    assert right in others
    distance = (right - seat) % 16
    assert all((other - seat) % 16 >= distance for other in others)


@given(occupied=seatings, data=st.data())
def test_a_bank_win_keeps_the_shoe_and_a_loss_moves_it_once_round_the_table(occupied, data):
    holder = data.draw(st.sampled_from(sorted(occupied)))
    tie_shoe_stays = data.draw(st.booleans())
    assert holder_after_coup(holder=holder, occupied=occupied, winner=BANKER, tie_shoe_stays=tie_shoe_stays) == holder
    # Banker losing len(occupied) times in a row takes the shoe to every patron once and back to the holder.
    visited, current = [], holder
    for _ in occupied:
        current = holder_after_coup(holder=current, occupied=occupied, winner=PLAYER, tie_shoe_stays=tie_shoe_stays)
        visited.append(current)
    assert visited[-1] == holder
    assert sorted(visited) == sorted(occupied)
