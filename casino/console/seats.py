"""The dealer console's seats (seed 000 §1.1): patrons seated, moved and unseated, and their chips on the
layout entered per seat and box while betting is open. The steps join ``casino.console.views.STEPS``."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import HttpRequest

from kernel.errors import ErrorCode
from tables import seating
from tables.console_forms import BuyInForm, PatronMoveForm, PatronSeatForm, SeatBetForm, SeatSessionForm
from tables.errors import TableError
from tables.locks import table_locked
from tables.models import Coup, Seat, SeatSession, Table
from tables.selectors import coup_rules, table_live_coup_named, table_seated
from wagering.amounts import bet_label
from wagering.chip_reports import seat_session_ratings, table_open_shifts
from wagering.chips import seat_buy_in
from wagering.errors import BetRejected
from wagering.models import money
from wagering.seated import Reduction, differential_reduction, seat_bets_place, seat_bets_reduce
from wagering.selectors import coup_seat_bets, seat_session_has_bets_in_play


def seats_context(*, table: Table, coup: Coup | None, acting: bool) -> dict:
    """The ten seats as the console shows them: each patron with their chips on the coup (what each bet
    returned once settled), and the forms of whoever may act here (``acting``)."""
    seated = {session.seat.number: session for session in table_seated(table=table)}
    ratings = seat_session_ratings(sessions=seated.values())
    bets = coup_seat_bets(coup=coup) if coup is not None else {}
    betting = acting and coup is not None and coup.state == Coup.State.BETTING and not coup.no_bet
    rules = coup_rules(coup=coup) if betting else None
    free = [number for number in range(1, Seat.SEATS_PER_TABLE + 1) if number not in seated]
    seats = []
    for number in range(1, Seat.SEATS_PER_TABLE + 1):
        session = seated.get(number)
        seat = {
            "number": number,
            "session": session,
            "bets": bets.get(session.pk, []) if session else [],
            "rating": ratings.get(session.pk) if session else None,
        }
        if acting and session is not None:
            seat["move_form"] = PatronMoveForm(initial={"session": session.pk}, auto_id=f"move-{number}-%s")
            seat["move_form"].fields["seat"].choices = [(n, f"Seat {n}") for n in free]
            seat["unseat_form"] = SeatSessionForm(initial={"session": session.pk}, auto_id=f"unseat-{number}-%s")
            seat["buy_in_form"] = BuyInForm(initial={"session": session.pk}, auto_id=f"buy-in-{number}-%s")
            if betting:
                seat["bet_form"] = SeatBetForm(
                    initial={"session": session.pk, "round_id": coup.round_id},
                    offered=list(rules.offered_limits(session.currency)),
                    auto_id=f"bet-{number}-%s",
                )
        seats.append(seat)
    return {
        "seats": seats,
        "seat_form": PatronSeatForm(initial={"seat": free[0]}) if acting and free else None,
        "shiftless_currencies": _shiftless_currencies(table, seated.values()) if acting else [],
    }


def _shiftless_currencies(table: Table, seated) -> list[str]:
    """The seated patrons' currencies with no shift open: their chips would be refused (``no_open_shift``),
    so the console says so before the dealer enters any."""
    open_in = {opening.currency for opening in table_open_shifts(table_id=table.pk)}
    return sorted({session.currency for session in seated} - open_in)


def _session_here(table: Table, session_id: int, *, for_update: bool = False) -> SeatSession:
    """The patron seated at this table now with that id: never another table's (a forged id is refused)."""
    sessions = SeatSession.objects.select_for_update(of=("self",)) if for_update else SeatSession.objects
    session = sessions.select_related("seat", "player").filter(pk=session_id, table=table, ended_at__isnull=True)
    found = session.first()
    if found is None:
        raise TableError("that patron is not seated at this table: the page was out of date", code=ErrorCode.NOT_SEATED)
    return found


def patron_seat_step(request: HttpRequest, table: Table, data: dict) -> str:
    player = None
    if data["player"].strip():
        players = get_user_model()._default_manager.filter(is_staff=False, is_active=True)
        player = players.filter(**{get_user_model().USERNAME_FIELD: data["player"].strip()}).first()
        if player is None:
            raise TableError(f"no active player is named {data['player'].strip()!r}", code=ErrorCode.NO_SUCH_PLAYER)
    session = seating.patron_seat(
        table=table,
        seat_number=data["seat"],
        actor=request.user,
        player=player,
        guest_name=data["guest_name"],
        currency=data["currency"].strip().upper() or None,
    )
    return f"{session.patron_name} seated at seat {session.seat.number}, playing {session.currency} chips."


def patron_move_step(request: HttpRequest, table: Table, data: dict) -> str:
    session = _session_here(table, data["session"])
    was = session.seat.number
    session = seating.patron_move(session=session, seat_number=data["seat"], actor=request.user)
    return f"{session.patron_name} moved from seat {was} to seat {session.seat.number}."


def patron_unseat_step(request: HttpRequest, table: Table, data: dict) -> str:
    """The patron leaves, unless chips of theirs are in play: their session locked (after the table, as
    ``tables.locks`` orders) while that is checked, so chips entered meanwhile wait and are then refused."""
    with transaction.atomic():
        table_locked(table.pk)
        session = _session_here(table, data["session"], for_update=True)
        if seat_session_has_bets_in_play(seat_session=session):
            raise TableError(
                f"{session.patron_name} has chips in play: they leave once the coup is settled",
                code=ErrorCode.CHIPS_IN_PLAY,
            )
        seating.patron_unseat(session=session, actor=request.user)
    return f"{session.patron_name} left seat {session.seat.number}."


def seat_buy_in_step(request: HttpRequest, table: Table, data: dict) -> str:
    session = _session_here(table, data["session"])
    movement = seat_buy_in(seat_session=session, amount=data["amount"], actor=request.user)
    return f"Seat {session.seat.number}: {movement.amount} {movement.currency} in chips for cash."


def seat_bet_step(request: HttpRequest, table: Table, data: dict) -> str:
    """A seat's chips; over the maximum differential, the refusal proposes the proportional reduction
    (seed 000 §6.1.2), which the console then offers to apply (``seat_bets_reduce_step``)."""
    session = _session_here(table, data["session"])
    coup = table_live_coup_named(table=table, round_id=data["round_id"])
    bets = {data["bet_type"]: data["stake"]}
    try:
        placed = seat_bets_place(coup=coup, seat_session=session, bets=bets, actor=request.user)
    except BetRejected as refusal:
        reduction = differential_reduction(coup=coup, seat_session=session, bets=bets)
        if refusal.code != "max_differential" or reduction is None:
            raise
        request.session[REDUCTION_PROPOSAL] = {
            "session": session.pk,
            "round_id": coup.round_id,
            "bet_type": data["bet_type"],
            "stake": str(data["stake"]),
            "text": reduction_text(reduction),
        }
        raise BetRejected(
            f"{refusal.message}. {reduction_text(reduction)}", code=refusal.code, details=refusal.details
        ) from None
    total = f"{placed.seat_totals[data['bet_type']]} {placed.currency}"
    return f"Seat {session.seat.number}: {money(data['stake'])} on {bet_label(data['bet_type'])} ({total} in all)."


def seat_bet_override_step(request: HttpRequest, table: Table, data: dict) -> str:
    """A pit boss accepts a seat's chips past the maximum differential, within their authority (§6.1.2)."""
    session = _session_here(table, data["session"])
    coup = table_live_coup_named(table=table, round_id=data["round_id"])
    bets = {data["bet_type"]: data["stake"]}
    seat_bets_place(coup=coup, seat_session=session, bets=bets, actor=request.user, differential_override=True)
    return f"Seat {session.seat.number}: {money(data['stake'])} on {bet_label(data['bet_type'])}, accepted by the pit."


def seat_bets_reduce_step(request: HttpRequest, table: Table, data: dict) -> str:
    session = _session_here(table, data["session"])
    coup = table_live_coup_named(table=table, round_id=data["round_id"])
    reduction = seat_bets_reduce(
        coup=coup, seat_session=session, bets={data["bet_type"]: data["stake"]}, actor=request.user
    )
    return f"Reduced (seed 000 §6.1.2): {_reduced_seats(reduction)}."


def reduction_proposal(*, request: HttpRequest, coup: Coup | None) -> dict:
    """The reduction the last refused entry proposed (once), with its form, while its coup takes bets."""
    proposal = request.session.pop(REDUCTION_PROPOSAL, None)
    if proposal is None or coup is None or coup.round_id != proposal["round_id"]:
        return {}
    fields = {name: proposal[name] for name in ("session", "round_id", "bet_type", "stake")}
    return {"reduction_text": proposal["text"], "reduction_form": SeatBetForm(initial=fields, auto_id="reduce-%s")}


def reduction_text(reduction: Reduction) -> str:
    return (
        f"Proposed proportional reduction (seed 000 §6.1.2), {reduction.over_by} {reduction.currency} too much on "
        f"{reduction.hand.capitalize()}: {_reduced_seats(reduction)}"
    )


def _reduced_seats(reduction: Reduction) -> str:
    seats = dict(SeatSession.objects.filter(pk__in=reduction.stakes).values_list("pk", "seat__number"))
    return ", ".join(
        f"seat {seats[session_id]} {now} → {reduced}"
        for session_id, (now, reduced) in sorted(reduction.stakes.items(), key=lambda item: seats[item[0]])
    )


REDUCTION_PROPOSAL = "console_reduction_proposal"
