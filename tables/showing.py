"""Who shows each hand (seed 000 §5.1), after "no more bets": the highest bettor on it, decided when betting
closes (``tables.coups.coup_close_betting``); the pit's and the dealer's changes to it are here, each
audited and told to the table on commit."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from baccarat.coup import BANKER, PLAYER
from kernel.errors import ErrorCode
from kernel.live import table_event_send
from tables.audit import audit_record
from tables.coups import SHOWN_BY_FIELDS
from tables.errors import TableError
from tables.locks import coup_locked
from tables.models import Coup
from tables.selectors import coup_shown_by

User = AbstractBaseUser
SHOWING_STATES = (Coup.State.NO_MORE_BETS, Coup.State.DEALING)


@transaction.atomic
def coup_banker_shown_first(*, coup: Coup, actor: User, lone_customer: bool) -> Coup:
    """Seed 000 §5.1.4: the only customer at the table may, with the pit's permission, have the Banker hand
    shown first (the order of showing, never of dealing). ``lone_customer``: one customer has bets on the
    coup (the caller counts them; after "no more bets" they cannot change)."""
    coup = _coup_showing(coup)
    if not lone_customer:
        raise TableError("only a lone customer at the table may choose the order of showing", code=ErrorCode.NOT_ALONE)
    if coup.banker_shown_first:
        raise TableError("the Banker hand is already shown first", code=ErrorCode.ALREADY_BANKER_FIRST)
    coup.banker_shown_first = True
    coup.save(update_fields=["banker_shown_first"])
    audit_record(action="showing_order_banker_first", actor=actor, table=coup.table, obj=coup, reason="seed 000 §5.1.4")
    _shown_by_send(coup)
    return coup


@transaction.atomic
def coup_hand_shown_by_dealer(*, coup: Coup, hand: str, actor: User, reason: str = "") -> Coup:
    """Seed 000 §5.1.7: the cards of ``hand`` went to the wrong customer: the dealer shows that hand, and the
    coup goes on as normal."""
    coup = _coup_showing(coup)
    if hand not in (PLAYER, BANKER):
        raise TableError(f"there is no {hand!r} hand", code=ErrorCode.NO_SUCH_HAND)
    before = coup_shown_by(coup=coup)
    if before[hand] == "dealer":
        raise TableError(f"the dealer already shows the {hand} hand", code=ErrorCode.ALREADY_THE_DEALER)
    setattr(coup, f"{hand}_shown_by", None)
    setattr(coup, f"{hand}_shown_by_seat", None)
    coup.save(update_fields=list(SHOWN_BY_FIELDS))
    audit_record(
        action="hand_shown_by_dealer",
        actor=actor,
        table=coup.table,
        obj=coup,
        before={"hand": hand, "shown_by": before[hand]},
        after={"hand": hand, "shown_by": "dealer"},
        reason=reason or "seed 000 §5.1.7: the cards went to the wrong customer",
    )
    _shown_by_send(coup)
    return coup


def _coup_showing(coup: Coup) -> Coup:
    coup = coup_locked(coup)
    if coup.state not in SHOWING_STATES:
        raise TableError(
            f"coup {coup.round_id} is {coup.state}: who shows the hands changes between no more bets and the result",
            code=ErrorCode.NOT_SHOWING,
        )
    return coup


def _shown_by_send(coup: Coup) -> None:
    table_event_send(
        table_code=coup.table.code,
        event_type="shown_by",
        data={
            "round_id": coup.round_id,
            "shown_by": coup_shown_by(coup=coup),
            "banker_shown_first": coup.banker_shown_first,
        },
    )
