"""A table dealt on demand (seed 004): "Deal" places the player's bets on a new coup of their private shoe,
deals it whole and settles it, in ONE transaction; "Rebet and deal" repeats their last bets at the table.

The bets go through the placement every table uses (limits, personal markers, Player and Banker together as
the table says, the wallet and the ledger) and the payout through the same settlement (``coup_settle``, run
here in the deal's transaction rather than by the task on commit: the player sees the result paid). Once per
``request_id`` (``wagering.idempotency``): a double click, a second tab or a replayed request waits for the
first and is answered what it did; one coup. The player deals from the shoe whose commitment their page
showed (``commitment``): a page left open on an older shoe is refused (``shoe_changed``).
Lock order: the table (only to make a shoe), the shoe, the coup, the wallets (``tables.locks``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from casino.lifecycle.settlement import coup_settle
from kernel.errors import ErrorCode
from tables.errors import TableError
from tables.models import Shoe, Table
from tables.private_coups import private_coup_deal, private_coup_open, private_shoe_in_play, private_shoe_ready
from wagering.errors import IdempotencyConflict
from wagering.idempotency import request_once
from wagering.models import BetRequest, BetSettlement
from wagering.placement import bet_batch_place, bet_rebet
from wagering.selectors import wallet_balance, wallet_currency

User = AbstractBaseUser
DEAL_KIND = "deal"


@dataclass(frozen=True)
class RngDealAsked:
    """A deal: ``bets`` (bet type -> stake), or ``None`` to repeat the last bets at the table."""

    user: User
    table: Table
    bets: Mapping[str, object] | None
    commitment: str
    request_id: str


def rng_coup_deal(*, asked: RngDealAsked) -> dict:
    """Deal one private coup for the player (or, for a ``request_id`` already carried out, answer it again):
    the coup as dealt, the bets and what they returned, the balance after; the shoe that the cut card ended
    (revealed) and the player's shoe now (a new one, committed, ready for the next deal)."""
    outcome = request_once(
        model=BetRequest,
        scope={"user": asked.user.pk},
        key=asked.request_id,
        request=_parameters(asked),
        perform=lambda: _deal(asked),
        conflict=lambda record: IdempotencyConflict(
            f"request_id {asked.request_id!r} was used for another request",
            code=ErrorCode.IDEMPOTENCY_CONFLICT,
            details={"request_id": asked.request_id},
        ),
        fields={"kind": DEAL_KIND},
        remember=lambda model, record_id, answer: model.objects.filter(pk=record_id).update(
            answer=answer, accepted=True
        ),
        replay=lambda record: {**record.answer, "replayed": True},
    )
    answer = outcome.result
    if answer["shoe_ended"] is not None:
        rng_shoe_ready(table=asked.table, player=asked.user)  # the next shoe's commitment, before its first deal
    return {**answer, "shoe": rng_shoe_public(shoe=private_shoe_in_play(table=asked.table, player=asked.user))}


def rng_shoe_ready(*, table: Table, player: User) -> Shoe:
    """The player's private shoe in play at the table, made (and committed) if they have none."""
    return private_shoe_ready(table=table, player=player)


def rng_shoe_public(*, shoe: Shoe | None) -> dict | None:
    """What the player's page shows of their shoe in play: its number, commitment and progress; never its order."""
    if shoe is None:
        return None
    return {
        "number": shoe.number,
        "decks": shoe.decks,
        "commitment": shoe.commitment,
        "coups": shoe.coups_started,
        "cards_left": shoe.decks * 52 - shoe.position,
        "burn_shown": shoe.burn_shown or None,
    }


def _parameters(asked: RngDealAsked) -> dict:
    bets = None if asked.bets is None else {str(k): str(v) for k, v in asked.bets.items()}
    return {"kind": DEAL_KIND, "table": asked.table.code, "bets": bets, "commitment": asked.commitment}


def _deal(asked: RngDealAsked) -> dict:
    user = asked.user
    with transaction.atomic():
        shoe = private_shoe_ready(table=asked.table, player=user)
        if shoe.commitment != asked.commitment:
            raise TableError(
                f"your shoe is now shoe {shoe.number}: reload the page to see its commitment before you deal",
                code=ErrorCode.SHOE_CHANGED,
                details={"shoe": shoe.number},
            )
        coup = private_coup_open(shoe=shoe, player=user)
        if asked.bets is None:
            placed = bet_rebet(user=user, coup=coup)
        else:
            placed = bet_batch_place(user=user, coup=coup, bets=asked.bets)
        coup = private_coup_deal(coup=coup, shoe=shoe)
        coup_settle(coup_id=coup.pk)
        settlements = list(BetSettlement.objects.filter(bet__coup=coup, bet__user=user).select_related("bet"))
        returned = {settlement.bet.bet_type: settlement.returned for settlement in settlements}
        outcomes = {settlement.bet.bet_type: settlement.outcome for settlement in settlements}
        return {
            "round_id": coup.round_id,
            "number": coup.number,
            "shoe_number": shoe.number,
            "cards": [{"hand": card.hand, "card": card.card} for card in coup.cards.order_by("position")],
            "player_total": coup.player_total,
            "banker_total": coup.banker_total,
            "winner": coup.winner,
            "player_pair": coup.player_pair,
            "banker_pair": coup.banker_pair,
            "natural": coup.natural,
            "bets": {bet.bet_type: str(bet.stake) for bet in placed.bets},
            "returned": {bet_type: str(amount) for bet_type, amount in returned.items()},
            "outcomes": outcomes,
            "total_returned": str(sum(returned.values(), Decimal(0))),
            "balance": str(wallet_balance(user=user)),
            "currency": wallet_currency(user=user),
            "shoe_ended": _revealed(shoe) if shoe.revealed else None,
            "replayed": False,
        }


def _revealed(shoe: Shoe) -> dict:
    secrets = shoe.reveal()
    return {
        "number": shoe.number,
        "commitment": shoe.commitment,
        "card_order": secrets.card_order,
        "salt": secrets.salt,
    }
