"""Dealing a card: drawn from an RNG shoe, or entered by the dealer and checked against what the shoe
can hold. A card entered for the wrong hand holds the coup for the pit (``tables.holds``)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from baccarat.cards import Card
from baccarat.coup import HANDS
from kernel.errors import ErrorCode
from tables.audit import audit_record
from tables.coups import card_event_send
from tables.errors import TableError
from tables.holds import coup_hold_for_card
from tables.locks import coup_locked, shoe_locked
from tables.models import Coup, DealtCard, HeldCard, Shoe
from tables.selectors import coup_deal_state, shoe_dealer
from tables.shoes import cut_card_out_send

User = AbstractBaseUser


@transaction.atomic
def coup_deal_card(
    *, coup: Coup, card: str | None = None, hand: str | None = None, actor: User | None = None
) -> DealtCard | HeldCard:
    """Deal the next card: from the RNG shoe, or as a dealer enters it (``card``, ``hand``).

    A card entered for the wrong hand is not re-ordered here: it has left the shoe, and the coup is
    held until a pit boss decides (seed 000 §4.2-4.3, ``tables.holds``); it is returned as a ``HeldCard``.
    """
    if hand not in (None, *HANDS):
        raise TableError(f"a card is dealt to the player or the banker hand, not {hand!r}", code=ErrorCode.INVALID_HAND)
    coup = coup_locked(coup)
    if coup.state not in (Coup.State.NO_MORE_BETS, Coup.State.DEALING):
        raise TableError(
            f"coup {coup.round_id} is {coup.get_state_display().lower()}: no card can be dealt",
            code=ErrorCode.NOT_DEALING,
        )
    shoe = shoe_locked(coup.shoe_id)
    deal = coup_deal_state(coup=coup)
    expected = deal.next_hand()
    if expected is None:
        raise TableError(f"coup {coup.round_id} is complete: resolve it", code=ErrorCode.COUP_COMPLETE)
    if shoe.has_card_order:
        if card is not None or hand is not None:
            raise TableError("an automatic table deals from its RNG shoe: no card is entered", code=ErrorCode.RNG_SHOE)
        dealer = shoe_dealer(shoe, cards_in_coup=len(deal.order))
        drawn = dealer.draw()
        cut_card_was_in = shoe.last_coup is None
        shoe.position, shoe.last_coup = dealer.state.position, dealer.state.last_coup
        if cut_card_was_in and shoe.last_coup is not None:
            cut_card_out_send(shoe=shoe)
    else:
        if card is None:
            raise TableError("enter the card dealt", code=ErrorCode.CARD_REQUIRED)
        drawn = Card.parse(card)
        _card_copies_check(shoe=shoe, card=drawn)
        if hand not in (None, expected):
            return coup_hold_for_card(
                coup=coup, shoe=shoe, card=drawn, entered_for=hand, next_hand=expected, actor=actor
            )
        if actor is not None:
            audit_record(
                action="card_entered",
                actor=actor,
                table=coup.table,
                obj=coup,
                after={"card": drawn.code, "hand": expected},
            )
        shoe.position += 1
    deal.add(drawn)
    dealt = DealtCard.objects.create(
        coup=coup,
        shoe=shoe,
        position=len(deal.order) - 1,
        shoe_position=shoe.position - 1,
        hand=expected,
        card=drawn.code,
        entered_by=actor if actor is not None and actor.is_authenticated else None,
    )
    shoe.save(update_fields=["position", "last_coup"])
    if coup.state != Coup.State.DEALING:
        coup.state = Coup.State.DEALING
        coup.save(update_fields=["state"])
    if shoe.last_coup is not None and shoe.last_coup == coup.number and len(deal.order) == 1:
        audit_record(action="cut_card_out", table=coup.table, obj=shoe, after={"last_coup": shoe.last_coup})
    card_event_send(coup=coup, dealt=dealt, deal=deal)
    return dealt


def _card_copies_check(*, shoe: Shoe, card: Card) -> None:
    """A physical shoe holds ``decks`` copies of each card: one more cannot have come out of it."""
    out = (
        DealtCard.objects.filter(shoe=shoe, card=card.code).count()
        + HeldCard.objects.filter(shoe=shoe, card=card.code, dealt_card__isnull=True).count()
        + (shoe.burn_shown == card.code)
    )
    if out >= shoe.decks:
        raise TableError(
            f"{card.code} cannot come out of shoe {shoe.number}: its {shoe.decks} decks hold {shoe.decks} "
            f"and {out} are already out",
            code=ErrorCode.TOO_MANY_COPIES,
        )
