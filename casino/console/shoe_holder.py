"""The dealer console's patrons' shoe (seed 002's big table, ``tables.shoe_holders``): "Seat N holds the shoe" in
the seats, and the holder's pass (after a coup) or decline (before dealing one), steps joining
``casino.console.views.STEPS``. At a table where the croupier controls the shoe, nothing is shown."""

from __future__ import annotations

from django.http import HttpRequest

from tables.console_forms import ShoeHolderForm
from tables.models import Coup, Table
from tables.selectors import table_shoe_holder_public
from tables.shoe_holders import shoe_holder_decline, shoe_holder_pass


def shoe_holder_context(*, table: Table, coup: Coup | None, acting: bool) -> dict:
    """Who holds the shoe, and between coups, the button of whoever may act here: pass or decline."""
    if not table.patrons_hold_shoe:
        return {"shoe_holder": None}
    seat = table_shoe_holder_public(table=table)["seat"]
    between_coups = coup is None or coup.state not in Coup.LIVE_STATES
    offer = acting and seat is not None and between_coups
    return {
        "shoe_holder": {"seat": seat},
        "shoe_holder_form": ShoeHolderForm(initial={"seat": seat}) if offer else None,
        "shoe_holder_declines": table.shoe_holder_coups == 0,
    }


def shoe_holder_pass_step(request: HttpRequest, table: Table, data: dict) -> str:
    session = shoe_holder_pass(table=table, actor=request.user, seat_number=data["seat"])
    return f"Seat {data['seat']} passed the shoe: seat {session.seat.number} holds the shoe."


def shoe_holder_decline_step(request: HttpRequest, table: Table, data: dict) -> str:
    session = shoe_holder_decline(table=table, actor=request.user, seat_number=data["seat"])
    return f"Seat {data['seat']} declined the shoe: seat {session.seat.number} holds the shoe."
