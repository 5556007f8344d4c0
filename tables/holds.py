"""Dealing errors are the pit's decision (seed 000 §4), never the dealer's.

A card entered for the wrong hand holds the coup: betting, dealing and settlement wait while the
card (out of the shoe) waits for a pit boss. The pit boss puts it in its proper order (§4.3), in
this coup or as the next coup's first card, or, when the dealing order cannot be restored (§4.2), voids the
coup (``casino.lifecycle.coup_void``: by request once the players have seen its first cards, ``tables.voids``).
A pit boss may also hold any live coup by hand, and release it; a coup with a void request open stays held.
Locks: table, shoe, coup.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from baccarat.cards import Card
from baccarat.coup import PLAYER
from kernel.errors import ErrorCode
from kernel.live import table_event_send
from tables.audit import audit_record
from tables.coups import card_event_send
from tables.errors import TableError
from tables.locks import coup_locked
from tables.models import Coup, DealtCard, HeldCard, Shoe
from tables.selectors import coup_deal_state, coup_void_request_pending
from tables.services import no_bet_coups_order

User = AbstractBaseUser


# What the table is told of a hold. The reason itself (for a dealing error, the card and its hand) stays
# with the pit: a card out of the shoe may open the next coup (§4.3), so no viewer may see it.
PUBLIC_HOLD_REASONS = {"dealing_error": "a dealing error: the pit decides", "pit": "held by the pit"}


def coup_hold_mark(coup: Coup, *, reason: str, public_reason: str) -> None:
    """The coup (locked by the caller) waits for the pit: a card for the wrong hand, a hold by hand, a void request."""
    coup.held_from, coup.held_reason, coup.held_at = coup.state, reason, timezone.now()
    coup.state = Coup.State.HELD
    coup.save(update_fields=["state", "held_from", "held_reason", "held_at"])
    table_event_send(
        table_code=coup.table.code,
        event_type="coup_held",
        data={"round_id": coup.round_id, "reason": public_reason, "message": PUBLIC_HOLD_REASONS[public_reason]},
    )


def coup_hold_lift(coup: Coup, *, state: str) -> None:
    """The held coup (locked by the caller) goes on from ``state``."""
    coup.state, coup.held_from, coup.held_reason, coup.held_at = state, "", "", None
    coup.save(update_fields=["state", "held_from", "held_reason", "held_at"])
    table_event_send(
        table_code=coup.table.code, event_type="coup_resumed", data={"round_id": coup.round_id, "state": state}
    )


def coup_hold_for_card(
    *, coup: Coup, shoe: Shoe, card: Card, entered_for: str, next_hand: str, actor: User | None
) -> HeldCard:
    """Called by ``services.coup_deal_card``, coup and shoe locked: the card has left the shoe; the coup waits."""
    held = HeldCard.objects.create(
        coup=coup,
        shoe=shoe,
        shoe_position=shoe.position,
        card=card.code,
        entered_for=entered_for,
        next_hand=next_hand,
        entered_by=actor if actor is not None and actor.is_authenticated else None,
    )
    shoe.position += 1
    shoe.save(update_fields=["position"])
    reason = f"{card.code} entered for the {entered_for} hand, but the {next_hand} hand was next"
    audit_record(
        action="coup_held",
        actor=actor,
        table=coup.table,
        obj=coup,
        before={"state": coup.state},
        after={"state": Coup.State.HELD, "card": card.code, "entered_for": entered_for, "next_hand": next_hand},
        reason=reason,
    )
    coup_hold_mark(coup, reason=f"dealing error: {reason}", public_reason="dealing_error")
    return held


@transaction.atomic
def coup_hold(*, coup: Coup, actor: User | None, reason: str) -> Coup:
    """A pit boss holds a live coup by hand: bets, cards and the result wait until released or voided."""
    if not reason.strip():
        raise TableError("holding a coup needs a reason", code=ErrorCode.REASON_REQUIRED)
    coup = coup_locked(coup)
    if coup.state not in (Coup.State.BETTING, Coup.State.NO_MORE_BETS, Coup.State.DEALING):
        raise TableError(
            f"coup {coup.round_id} is {coup.get_state_display().lower()}: only a live coup is held",
            code=ErrorCode.NOT_LIVE,
        )
    audit_record(
        action="coup_held",
        actor=actor,
        table=coup.table,
        obj=coup,
        before={"state": coup.state},
        after={"state": Coup.State.HELD},
        reason=reason,
    )
    coup_hold_mark(coup, reason=reason, public_reason="pit")
    return coup


def _held_coup(coup: Coup) -> Coup:
    """The held coup, locked; refused while a void request waits for its decision (``tables.voids``)."""
    coup = coup_locked(coup)
    if coup.state != Coup.State.HELD:
        raise TableError(
            f"coup {coup.round_id} is {coup.get_state_display().lower()}, not held", code=ErrorCode.NOT_HELD
        )
    if coup_void_request_pending(coup=coup) is not None:
        raise TableError(
            f"coup {coup.round_id} has a void request waiting for a decision: it stays held until then",
            code=ErrorCode.VOID_REQUEST_OPEN,
        )
    return coup


def _pending_card(coup: Coup) -> HeldCard | None:
    return coup.held_cards.select_for_update(of=("self",)).filter(outcome=HeldCard.Outcome.PENDING).first()


@transaction.atomic
def coup_release(*, coup: Coup, actor: User | None, reason: str) -> Coup:
    """Release a coup held by hand: it goes on from where it was held."""
    if not reason.strip():
        raise TableError("releasing a coup needs a reason", code=ErrorCode.REASON_REQUIRED)
    coup = _held_coup(coup)
    if _pending_card(coup) is not None:
        raise TableError(
            f"coup {coup.round_id} holds a card entered for the wrong hand: put it in order or void the coup",
            code=ErrorCode.HELD_CARD_PENDING,
        )
    state = coup.held_from
    audit_record(
        action="coup_released",
        actor=actor,
        table=coup.table,
        obj=coup,
        before={"state": Coup.State.HELD},
        after={"state": state},
        reason=reason,
    )
    coup_hold_lift(coup, state=state)
    return coup


def _decided_card(coup: Coup, actor: User | None) -> HeldCard:
    card = _pending_card(coup)
    if card is None:
        raise TableError(f"coup {coup.round_id} holds no card entered for the wrong hand", code=ErrorCode.NO_HELD_CARD)
    card.decided_by = actor if actor is not None and actor.is_authenticated else None
    card.decided_at = timezone.now()
    return card


@transaction.atomic
def held_card_deal_in_this_coup(*, coup: Coup, actor: User | None, reason: str = "") -> DealtCard:
    """Seed 000 §4.3: the held card is the card of the hand that was next; the coup goes on dealing."""
    coup = _held_coup(coup)
    held = _decided_card(coup, actor)
    deal = coup_deal_state(coup=coup)
    if deal.next_hand() != held.next_hand:
        raise TableError(
            f"the {held.next_hand} hand no longer takes the next card: void the coup", code=ErrorCode.HAND_PASSED
        )
    deal.add(Card.parse(held.card))
    dealt = DealtCard.objects.create(
        coup=coup,
        shoe=coup.shoe,
        position=len(deal.order) - 1,
        shoe_position=held.shoe_position,
        hand=held.next_hand,
        card=held.card,
        entered_by=held.entered_by,
    )
    held.outcome, held.dealt_card = HeldCard.Outcome.DEALT, dealt
    held.save(update_fields=["outcome", "dealt_card", "decided_by", "decided_at"])
    audit_record(
        action="held_card_dealt",
        actor=actor,
        table=coup.table,
        obj=coup,
        after={"card": held.card, "hand": held.next_hand, "position": dealt.position},
        reason=reason,
    )
    coup_hold_lift(coup, state=Coup.State.DEALING)
    card_event_send(coup=coup, dealt=dealt, deal=deal)
    return dealt


@transaction.atomic
def held_card_keep_for_next_coup(*, coup: Coup, actor: User | None, no_bet: bool, reason: str = "") -> HeldCard:
    """Seed 000 §4.3: the held card is the next coup's first card (a no-bet coup if the pit says so);
    this coup goes on with the next card from the shoe."""
    coup = _held_coup(coup)
    held = _decided_card(coup, actor)
    shoe = coup.shoe
    if shoe.last_coup is not None and coup.number >= shoe.last_coup:
        raise TableError(
            f"coup {coup.round_id} is the last of shoe {shoe.number}: there is no next coup",
            code=ErrorCode.LAST_COUP_OF_SHOE,
        )
    if HeldCard.objects.filter(shoe=shoe, outcome=HeldCard.Outcome.NEXT_COUP).exists():
        raise TableError(
            f"a card of shoe {shoe.number} is already kept for the next coup: deal this one in this coup, or void",
            code=ErrorCode.CARD_ALREADY_KEPT,
        )
    held.outcome = HeldCard.Outcome.NEXT_COUP
    held.save(update_fields=["outcome", "decided_by", "decided_at"])
    audit_record(
        action="held_card_kept",
        actor=actor,
        table=coup.table,
        obj=coup,
        after={"card": held.card, "next_coup_no_bet": no_bet},
        reason=reason,
    )
    if no_bet:
        no_bet_coups_order(table=coup.table, actor=actor, count=1, reason=f"§4.3: {held.card} opens the next coup")
    coup_hold_lift(coup, state=coup.held_from)
    return held


def kept_card_deal(*, coup: Coup) -> DealtCard | None:
    """Called by ``casino.lifecycle.coup_close_betting``, coup locked: a card kept for this coup is its first card."""
    held = (
        HeldCard.objects.select_for_update(of=("self",))
        .filter(shoe=coup.shoe, outcome=HeldCard.Outcome.NEXT_COUP)
        .first()
    )
    if held is None:
        return None
    deal = coup_deal_state(coup=coup)
    deal.add(Card.parse(held.card), hand=PLAYER)
    dealt = DealtCard.objects.create(
        coup=coup,
        shoe=coup.shoe,
        position=0,
        shoe_position=held.shoe_position,
        hand=PLAYER,
        card=held.card,
        entered_by=held.entered_by,
    )
    held.outcome, held.dealt_card = HeldCard.Outcome.DEALT, dealt
    held.save(update_fields=["outcome", "dealt_card"])
    audit_record(action="held_card_dealt", table=coup.table, obj=coup, after={"card": held.card, "hand": PLAYER})
    coup.state = Coup.State.DEALING
    coup.save(update_fields=["state"])
    card_event_send(coup=coup, dealt=dealt, deal=deal)
    return dealt


def held_card_discard(*, coup: Coup, actor: User | None) -> None:
    """Called by ``casino.lifecycle.coup_void``: the void coup's held card is discarded (never burned)."""
    _discard(HeldCard.objects.filter(coup=coup, outcome=HeldCard.Outcome.PENDING), actor)


def kept_card_discard(*, shoe: Shoe, actor: User | None) -> None:
    """Called by ``services.shoe_finish``: a card kept for a coup the shoe never dealt is discarded."""
    _discard(HeldCard.objects.filter(shoe=shoe, outcome=HeldCard.Outcome.NEXT_COUP), actor)


def _discard(cards, actor: User | None) -> None:
    for held in cards.select_for_update(of=("self",)).select_related("shoe__table"):
        held.outcome, held.decided_at = HeldCard.Outcome.DISCARDED, timezone.now()
        held.decided_by = actor if actor is not None and actor.is_authenticated else held.decided_by
        held.save(update_fields=["outcome", "decided_at", "decided_by"])
        audit_record(
            action="held_card_discarded",
            actor=actor,
            table=held.shoe.table,
            obj=held,
            after={"card": held.card, "shoe_position": held.shoe_position},
        )
