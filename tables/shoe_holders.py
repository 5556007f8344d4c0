"""Who holds the shoe at a dealer table where the patrons hold it (seed 002's big table, the setting
``Table.patrons_hold_shoe``; the rule is ``baccarat.shoe_holder``). Off, the croupier controls the shoe
(mini-Baccarat) and nobody here holds it.

The holder is a seated patron (``Table.shoe_holder``, their seat session: moving seats, they keep the shoe). It
moves with the coup's result, in its transaction (``shoe_holder_after_coup``), when the holder leaves or the first
patron sits down (``tables.seating``), when the setting changes (``tables.services``), and when the holder passes
the shoe after a coup or declines it before dealing one (the console). Each move is audited
(``shoe_holder_moved``, with why) and told to the table on commit (the ``shoe_holder`` event: the seat, None for
the croupier). The table's lock is held by the caller (the coup's, for a result) or taken here.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F

from baccarat.shoe_holder import first_holder, holder_after_coup, holder_after_leaving, seat_on_the_right
from kernel.errors import ErrorCode
from kernel.live import table_event_send
from tables.audit import audit_record
from tables.errors import TableError
from tables.locks import table_locked
from tables.models import Coup, SeatSession, Table
from tables.selectors import coup_rules, table_live_coup, table_seated

User = AbstractBaseUser


def shoe_holder_after_coup(*, coup: Coup) -> None:
    """The coup's result moves the shoe as its rules say (kept while Banker wins): in the result's transaction,
    the coup's table locked (``coup_locked``). A coup played with the croupier's shoe moves nothing."""
    table = coup.table
    rules = coup_rules(coup=coup).table
    if not rules.patrons_hold_shoe or table.shoe_holder_id is None:
        return
    seated = _seated(table)
    holder = _holder_seat(table, seated)
    after = holder_after_coup(holder=holder, occupied=seated, winner=coup.winner, tie_shoe_stays=rules.tie_shoe_stays)
    if after == holder:
        Table.objects.filter(pk=table.pk).update(shoe_holder_coups=F("shoe_holder_coups") + 1)
        table.shoe_holder_coups += 1
        return
    _holder_set(table, seated[after], actor=None, why=f"coup {coup.round_id}: {coup.winner}, the bank hand did not win")


def shoe_holder_after_seating(*, table: Table, session: SeatSession, actor: User | None) -> None:
    """A patron sat down (the table locked): where the patrons hold the shoe and nobody does, they take it."""
    if table.patrons_hold_shoe and table.shoe_holder_id is None:
        _holder_set(table, session, actor=actor, why="first patron seated")


def shoe_holder_after_moving(*, table: Table, session: SeatSession, was: int, actor: User | None) -> None:
    """A patron moved from seat ``was`` (the table locked): the holder takes the shoe along, and the table sees
    their new seat."""
    if table.shoe_holder_id == session.pk:
        _holder_set(
            table, session, actor=actor, why="the holder moved seats", before=was, coups=table.shoe_holder_coups
        )


def shoe_holder_after_leaving(*, table: Table, session: SeatSession, actor: User | None) -> None:
    """A patron is leaving, still seated (the table locked): a holder who leaves passes the shoe on."""
    if table.shoe_holder_id != session.pk:
        return
    seated = _seated(table)
    after = holder_after_leaving(holder=session.seat.number, leaving=session.seat.number, occupied=seated)
    _holder_set(table, seated.get(after), actor=actor, why="the holder left the table")


def shoe_holder_after_setting(*, table: Table, actor: User | None) -> None:
    """``patrons_hold_shoe`` changed (the table locked): on, the first occupied seat takes the shoe; off, the
    croupier does."""
    if table.patrons_hold_shoe:
        seated = _seated(table)
        if seated:
            _holder_set(table, seated[first_holder(seated)], actor=actor, why="the patrons hold the shoe")
    elif table.shoe_holder_id is not None:
        _holder_set(table, None, actor=actor, why="the croupier holds the shoe")


@transaction.atomic
def shoe_holder_pass(*, table: Table, actor: User, seat_number: int) -> SeatSession:
    """The holder at ``seat_number`` passes the shoe after dealing one coup or more (seed 002: "after any hand")
    to the next occupied seat on their right; between coups."""
    return _handed_on(table=table, actor=actor, seat_number=seat_number, declined=False)


@transaction.atomic
def shoe_holder_decline(*, table: Table, actor: User, seat_number: int) -> SeatSession:
    """The patron at ``seat_number`` declines the shoe just offered them, before dealing a coup with it: it moves
    to the next occupied seat on their right; between coups."""
    return _handed_on(table=table, actor=actor, seat_number=seat_number, declined=True)


def _handed_on(*, table: Table, actor: User, seat_number: int, declined: bool) -> SeatSession:
    """``seat_number`` is the holder the console showed: a page out of date never hands on another's shoe."""
    table = table_locked(table.pk)
    if not table.patrons_hold_shoe or table.shoe_holder_id is None:
        raise TableError(f"the croupier holds the shoe at {table.code}", code=ErrorCode.CROUPIERS_SHOE)
    if table_live_coup(table=table) is not None:
        raise TableError("the shoe is passed or declined between coups", code=ErrorCode.COUP_IN_PROGRESS)
    seated = _seated(table)
    holder = _holder_seat(table, seated)
    if holder != seat_number:
        raise TableError(
            f"seat {holder} holds the shoe, not seat {seat_number}: the page was out of date",
            code=ErrorCode.PAGE_OUT_OF_DATE,
        )
    if declined and table.shoe_holder_coups:
        raise TableError(f"seat {holder} has dealt with the shoe: they pass it", code=ErrorCode.SHOE_DEALT)
    if not declined and not table.shoe_holder_coups:
        raise TableError(
            f"seat {holder} has not dealt a coup yet: they decline the shoe", code=ErrorCode.SHOE_NOT_DEALT
        )
    after = seat_on_the_right(holder, seated)
    if after is None:
        raise TableError(f"seat {holder} is the only patron: nobody to take the shoe", code=ErrorCode.SHOE_HOLDER_ALONE)
    _holder_set(table, seated[after], actor=actor, why="declined" if declined else "passed")
    return seated[after]


def _seated(table: Table) -> dict[int, SeatSession]:
    return {session.seat.number: session for session in table_seated(table=table)}


def _holder_seat(table: Table, seated: dict[int, SeatSession]) -> int:
    return next(number for number, session in seated.items() if session.pk == table.shoe_holder_id)


def _holder_set(
    table: Table,
    session: SeatSession | None,
    *,
    actor: User | None,
    why: str,
    before: int | None = None,
    coups: int = 0,
) -> None:
    """The shoe to ``session`` (None: the croupier), audited, the table told on commit. ``before``: the seat the
    holder had (read from their session unless given); ``coups``: those they have dealt (none, for a new holder)."""
    before = before if before is not None else _seat_of(table.shoe_holder_id)
    Table.objects.filter(pk=table.pk).update(shoe_holder=session, shoe_holder_coups=coups)
    table.shoe_holder, table.shoe_holder_coups = session, coups
    seat = session.seat.number if session is not None else None
    audit_record(
        action="shoe_holder_moved",
        actor=actor,
        table=table,
        obj=table,
        before={"seat": before},
        after={"seat": seat, "patron": session.patron_name if session is not None else None},
        reason=why,
    )
    table_event_send(table_code=table.code, event_type="shoe_holder", data={"seat": seat})


def _seat_of(session_id: int | None) -> int | None:
    if session_id is None:
        return None
    return SeatSession.objects.filter(pk=session_id).values_list("seat__number", flat=True).get()
