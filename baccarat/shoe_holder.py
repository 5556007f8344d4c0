"""Who holds the shoe at a big table where the patrons deal it (seed 002): "The player is entitled to keep the
shoe as long as the bank hand wins (except in mini-Baccarat where the croupier controls the shoe at all times).
When the bank hand loses, the shoe moves to the next player on the right. A player may voluntarily pass the
shoe after any hand."

Seats are numbers; "the next seat on the right" is the next occupied seat number up, round the table (after the
highest, the lowest): the order the console lists them in. ``None`` is the croupier. The seeds leave a tie
open (the bank hand neither wins nor loses): a table setting says whether the shoe stays on a tie.
"""

from __future__ import annotations

from collections.abc import Collection

from baccarat.coup import BANKER, PLAYER, TIE

RESULTS = (PLAYER, BANKER, TIE)


def seat_on_the_right(seat: int, occupied: Collection[int]) -> int | None:
    """The first occupied seat after ``seat`` in seat order, round the table; never ``seat`` itself (None: no
    other seat is occupied)."""
    others = sorted(number for number in occupied if number != seat)
    return next((number for number in others if number > seat), others[0] if others else None)


def first_holder(occupied: Collection[int]) -> int | None:
    """Who takes the shoe when the patrons start holding it (the setting turned on, or the first patron
    seated while the croupier holds it): the lowest occupied seat, none if the table is empty."""
    return min(occupied, default=None)


def holder_after_coup(
    *, holder: int | None, occupied: Collection[int], winner: str, tie_shoe_stays: bool
) -> int | None:
    """The holder once a coup is resolved: they keep the shoe while the bank hand wins (and on a tie, where the
    table says so); otherwise it moves to the next occupied seat on their right (a patron alone keeps it).
    Nobody holding it (the croupier) stays so: the shoe goes to a patron only as ``first_holder`` says."""
    if winner not in RESULTS:
        raise ValueError(f"a coup's result is one of {', '.join(RESULTS)}, not {winner!r}")
    if holder is None:
        return None
    if holder not in occupied:
        raise ValueError(f"seat {holder} holds the shoe but is not occupied")
    if winner == BANKER or (winner == TIE and tie_shoe_stays):
        return holder
    return seat_on_the_right(holder, occupied) or holder


def holder_after_leaving(*, holder: int | None, leaving: int, occupied: Collection[int]) -> int | None:
    """The holder once the patron at ``leaving`` (one of ``occupied``) has left: a holder who leaves passes the
    shoe to the next occupied seat on their right (the croupier's, with nobody left)."""
    if holder != leaving:
        return holder
    return seat_on_the_right(leaving, occupied)
