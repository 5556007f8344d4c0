"""The dealer console's "who shows each hand" (seed 000 §5.1): the hand's cards go to the highest bettor on it
among the seated patrons ("Player hand to seat 3"), an online player squeezes them, or the dealer shows them;
§5.1.4 (the pit lets a lone customer see the Banker first) and §5.1.7 (cards handed to the wrong customer:
the dealer shows that hand) as steps joining ``casino.console.views.STEPS``."""

from __future__ import annotations

from django.db import transaction
from django.http import HttpRequest

from baccarat.coup import BANKER, PLAYER
from tables.console_forms import HandForm
from tables.models import Coup, Table
from tables.selectors import table_live_coup_named
from tables.showing import SHOWING_STATES, coup_banker_shown_first, coup_hand_shown_by_dealer
from wagering.selectors import coup_bettor_count


def showing_context(*, coup: Coup | None, dealer_acts: bool, pit_acts: bool) -> dict:
    """Who shows each hand, in the order they are shown, as staff see it, with the forms of who may act."""
    if coup is None or coup.state not in SHOWING_STATES:
        return {"showing": []}
    showing = []
    for hand in (BANKER, PLAYER) if coup.banker_shown_first else (PLAYER, BANKER):
        showing.append(
            {
                "hand": hand,
                "text": _who_shows(coup, hand),
                "dealer_form": (
                    HandForm(initial={"round_id": coup.round_id, "hand": hand}, auto_id=f"shown-{hand}-%s")
                    if (dealer_acts or pit_acts) and not _dealer_shows(coup, hand)
                    else None
                ),
            }
        )
    lone = pit_acts and not coup.banker_shown_first and coup_bettor_count(coup=coup) == 1
    return {
        "showing": showing,
        "banker_first_form": HandForm(initial={"round_id": coup.round_id, "hand": BANKER}) if lone else None,
    }


def _dealer_shows(coup: Coup, hand: str) -> bool:
    return getattr(coup, f"{hand}_shown_by_id") is None and getattr(coup, f"{hand}_shown_by_seat_id") is None


def _who_shows(coup: Coup, hand: str) -> str:
    name = hand.capitalize()
    user, seat = getattr(coup, f"{hand}_shown_by"), getattr(coup, f"{hand}_shown_by_seat")
    if seat is not None:
        return f"{name} hand to seat {seat.seat.number} ({seat.patron_name})"
    if user is not None:
        return f"{name} hand: {user.get_username()} squeezes online; the dealer turns the cards"
    return f"{name} hand: the dealer shows"


def hand_shown_by_dealer_step(request: HttpRequest, table: Table, data: dict) -> str:
    coup = coup_hand_shown_by_dealer(
        coup=table_live_coup_named(table=table, round_id=data["round_id"]), hand=data["hand"], actor=request.user
    )
    return (
        f"The dealer shows the {data['hand'].capitalize()} hand (seed 000 §5.1.7); the coup goes on ({coup.round_id})."
    )


def banker_shown_first_step(request: HttpRequest, table: Table, data: dict) -> str:
    with transaction.atomic():
        coup = table_live_coup_named(table=table, round_id=data["round_id"])
        coup_banker_shown_first(coup=coup, actor=request.user, lone_customer=coup_bettor_count(coup=coup) == 1)
    return "The Banker hand is shown first (seed 000 §5.1.4)."
