"""What the dealer console's page follows without a reload: whether its coup is held for the pit (and why, and
a void request waiting for its decision),
the tableau's next step, and a fingerprint of what its panels show, so that a change made by someone else (a
pit boss holding or releasing the coup in the admin, cancelling a cut, logging a dealer in or out, seating or
moving a patron, the shoe passed to another patron, entering seated chips, opening or closing a shift from another
device, a coup's settlement) reaches the tablet within seconds. The page and its polls both build it here: one
definition."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass

from baccarat.coup import CoupDeal, dealer_announcement
from tables.models import Coup, DealerSession, Shoe, Table
from tables.selectors import coup_void_request_pending, table_seated
from tables.voids import void_request_text
from wagering.chip_reports import table_open_shifts
from wagering.selectors import coup_seat_bets


@dataclass(frozen=True)
class ConsoleStatus:
    version: str  # changes whenever what the panels show of the table, shoe, coup, seats and tray does
    held_alert: str  # "" unless the coup is held for the pit
    next_step: str  # the tableau's, while cards are dealt

    def as_json(self) -> dict:
        return asdict(self)


def console_status(
    *,
    table: Table,
    dealer: DealerSession | None,
    shoe: Shoe | None,
    shuffled: Shoe | None,
    coup: Coup | None,
    deal: CoupDeal | None,
) -> ConsoleStatus:
    """From what the console has read already, and the seats, their chips on the coup and the open shifts
    (three small queries, and a held coup's void request: the seats' and the tray's panels read them on their own)."""
    state = coup.state if coup is not None else None
    void_request = coup_void_request_pending(coup=coup) if state == Coup.State.HELD else None
    in_hand = state in (Coup.State.NO_MORE_BETS, Coup.State.DEALING)
    panels = (
        (
            table.is_open,
            table.no_bet_coups_ordered,
            dealer.pk if dealer is not None else None,
            table.patrons_hold_shoe,
            table.shoe_holder_id,
            table.shoe_holder_coups,
        ),
        (shoe.pk, shoe.position, shoe.last_coup, shoe.burn_shown) if shoe is not None else None,
        shuffled.pk if shuffled is not None else None,
        (
            coup.pk,
            state,
            coup.held_reason,
            coup.winner,
            coup.void_reason,
            coup.banker_shown_first,
            coup.player_shown_by_id,
            coup.banker_shown_by_id,
            coup.player_shown_by_seat_id,
            coup.banker_shown_by_seat_id,
            len(deal.order),
            void_request.pk if void_request is not None else None,
        )
        if coup is not None
        else None,
        [(session.pk, session.seat.number) for session in table_seated(table=table)],
        coup_seat_bets(coup=coup) if coup is not None else None,
        [opening.pk for opening in table_open_shifts(table_id=table.pk)],
    )
    return ConsoleStatus(
        version=hashlib.sha256(repr(panels).encode()).hexdigest()[:16],
        held_alert=(
            f"Held for the pit: {coup.held_reason}. Nothing is dealt until a pit boss decides in the admin."
            + (f" The {void_request_text(void_request)}." if void_request is not None else "")
            if state == Coup.State.HELD
            else ""
        ),
        next_step=dealer_announcement(deal) if in_hand else "",
    )
