"""A table dealt on demand (seed 004): "Deal" places the player's bets on a new coup of their private shoe,
deals it whole and settles it, in ONE transaction; "Rebet and deal" repeats their last bets at the table.

The bets go through the placement every table uses (limits, personal markers, Player and Banker together as
the table says, the wallet and the ledger) and the payout through the same settlement (``coup_settle``, run
here in the deal's transaction rather than by the task on commit: the player sees the result paid). Once per
``request_id`` (``wagering.idempotency``): a double click, a second tab or a replayed request waits for the
first and is answered what it did; one coup. The player deals from the shoe whose commitment their page
showed (``commitment``): a page left open on an older shoe is refused (``shoe_changed``).
Lock order: the table (only to make a shoe), the shoe, the coup, the wallets (``tables.locks``).

A player whose money a partner's seamless wallet holds (``seamless``) deals as a seamless bet is placed
(``partners.seamless``): every check first, in a transaction rolled back; then the debit recorded, committed
and asked of the partner with no transaction open; then, acknowledged, the placement, deal and settlement in
one transaction, whose credit (zero for a round lost) the wallet queue sends on commit. Refused: nothing
dealt. No valid answer, or a refusal after the debit (the shoe changed meanwhile): the debit rolled back. A
process that dies between the debit and the deal leaves a debit with no bets, which the sweep rolls back
(``partners.wallet_sending``). The request's record is claimed first, as a seamless bet's is: asked again
meanwhile (or after such a crash), ``request_in_progress``; one debit, one coup.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from casino.lifecycle.settlement import private_coup_settle
from kernel.errors import ErrorCode
from kernel.raw_rows import row_update
from partners.models import PartnerPlayer, WalletTransaction
from partners.seamless import debit_claimed, rollback_unless_placed, seamless_debit
from tables.errors import TableError
from tables.locks import private_shoe_locked
from tables.models import Coup, Shoe, Table
from tables.private_coups import (
    private_coup_deal,
    private_coup_open,
    private_shoe_in_play,
    private_shoe_ready,
    table_dealt_on_demand_check,
)
from tables.selectors import shoe_is_finished
from wagering.errors import IdempotencyConflict
from wagering.idempotency import refusal_record, request_once
from wagering.models import BetRequest
from wagering.placement import (
    PartnerFunds,
    PlacedBatch,
    bet_batch_check,
    bet_batch_place,
    bet_rebet,
    bet_rebet_stakes,
)
from wagering.settlement import OpenBet

User = AbstractBaseUser
DEAL_KIND = "deal"
# The request ids of the partner API's deals, derived from a partner's Idempotency-Key: a page never sends one
# (``casino.players.bet_requests``), so a player cannot claim a partner's request before it comes.
PARTNER_REQUEST_ID_PREFIX = "api-"


@dataclass(frozen=True)
class RngDealAsked:
    """A deal: ``bets`` (bet type -> stake), or ``None`` to repeat the last bets at the table; ``seamless``: the
    partner's player, for a player whose money the partner's seamless wallet holds; ``placed_record``: run in the
    seamless deal's transaction with its bets (the partner API's idempotency record)."""

    user: User
    table: Table
    bets: Mapping[str, object] | None
    commitment: str
    request_id: str
    seamless: PartnerPlayer | None = None
    placed_record: Callable[[PlacedBatch], None] | None = None


def rng_coup_deal(*, asked: RngDealAsked) -> dict:
    """Deal one private coup for the player (or, for a ``request_id`` already carried out, answer it again):
    the coup as dealt, the bets and what they returned, the balance after; the shoe that the cut card ended
    (revealed) and the player's shoe now (a new one, committed, ready for the next deal)."""
    answer = _own_wallet_once(asked) if asked.seamless is None else _partner_wallet_once(asked)
    if answer["shoe_ended"] is None and not answer["replayed"]:
        return answer  # its shoe as the deal left it
    if answer["shoe_ended"] is not None:
        # The next shoe's commitment, before its first deal; none if the table closed meanwhile (the round stands).
        with suppress(TableError):
            rng_shoe_ready(table=asked.table, player=asked.user)
    return {**answer, "shoe": rng_shoe_public(shoe=private_shoe_in_play(table=asked.table, player=asked.user))}


def partner_deal_request_id(*, partner_id: int, idempotency_key: str) -> str:
    """The deal's own record is per player: a partner's key, named apart from a page's request ids."""
    return PARTNER_REQUEST_ID_PREFIX + hashlib.sha256(f"{partner_id}:{idempotency_key}".encode()).hexdigest()[:60]


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


def _conflict(asked: RngDealAsked) -> IdempotencyConflict:
    return IdempotencyConflict(
        f"request_id {asked.request_id!r} was used for another request",
        code=ErrorCode.IDEMPOTENCY_CONFLICT,
        details={"request_id": asked.request_id},
    )


def _own_wallet_once(asked: RngDealAsked) -> dict:
    outcome = request_once(
        model=BetRequest,
        scope={"user": asked.user.pk},
        key=asked.request_id,
        request=_parameters(asked),
        perform=lambda: _deal(asked),
        conflict=lambda record: _conflict(asked),
        fields={"kind": DEAL_KIND},
        remember=lambda model, record_id, answer: row_update(model, record_id, answer=answer, accepted=True),
        replay=lambda record: {**record.answer, "replayed": True},
    )
    return outcome.result


def _deal(asked: RngDealAsked) -> dict:
    user = asked.user
    with transaction.atomic(savepoint=False):  # request_once's transaction: one savepoint fewer
        shoe = _shoe_checked(asked)
        coup = private_coup_open(shoe=shoe, player=user)
        if asked.bets is None:
            placed = bet_rebet(user=user, coup=coup)
        else:
            placed = bet_batch_place(user=user, coup=coup, bets=asked.bets)
        answer, balances = _dealt(shoe=shoe, coup=coup, placed=placed)
        return {**answer, "balance": str(balances[user.pk]), "currency": placed.currency}


def _partner_wallet_once(asked: RngDealAsked) -> dict:
    """The request's record claimed and committed before the partner is called (a seamless bet's way,
    ``casino.players.bet_requests``), filled in by the deal's transaction; a refusal frees the request_id
    (nothing was dealt: it may be sent again), as the player's own wallet's deal rolls its claim back."""
    parameters = _parameters(asked)
    scope = {"user": asked.user.pk}
    recorded = refusal_record(
        model=BetRequest, scope=scope, key=asked.request_id, request=parameters, fields={"kind": DEAL_KIND}
    )
    if recorded is not None:
        if recorded.request != parameters:
            raise _conflict(asked)
        if recorded.answer is None:
            raise IdempotencyConflict(
                f"request {asked.request_id} is still being carried out (or was interrupted): "
                "send a new request_id to try again",
                code=ErrorCode.REQUEST_IN_PROGRESS,
                details={"request_id": asked.request_id},
            )
        return {**recorded.answer, "replayed": True}
    claim = BetRequest.objects.filter(user=asked.user, key=asked.request_id, answer__isnull=True)
    record_id = claim.values_list("pk", flat=True).get()
    try:
        return _deal_paid_by_partner(asked, record_id=record_id)
    except Exception:
        claim.delete()
        raise


def _deal_paid_by_partner(asked: RngDealAsked, *, record_id: int) -> dict:
    player, user = asked.seamless, asked.user
    partner = player.partner
    funds = PartnerFunds(code=partner.code, currency=partner.currency)
    round_id = Coup.new_round_id(asked.table.code)
    stakes = _partner_stakes_checked(asked, funds=funds, round_id=round_id)
    debit, balance = seamless_debit(
        player=player, stakes=stakes, round_id=round_id, table_code=asked.table.code, coup=None
    )
    try:
        with transaction.atomic():
            debit_claimed(debit=debit)
            shoe = _shoe_checked(asked)
            coup = private_coup_open(shoe=shoe, player=user, round_id=round_id)
            placed = bet_batch_place(user=user, coup=coup, bets=stakes, from_partner=funds)
            WalletTransaction.objects.filter(pk=debit.pk).update(batch=placed.batch, coup=coup)
            if asked.placed_record is not None:
                asked.placed_record(placed)
            answer, _ = _dealt(shoe=shoe, coup=coup, placed=placed)
            # The partner's balance once this round's credit (sent on commit) is in: the page has no socket.
            answer = {**answer, "balance": str(balance + Decimal(answer["total_returned"])), "currency": funds.currency}
            row_update(BetRequest, record_id, answer=answer, accepted=True)
    except Exception:  # e.g. the shoe changed while the partner answered: the debit is given back
        rollback_unless_placed(debit=debit)
        raise
    return answer


def _partner_stakes_checked(asked: RngDealAsked, *, funds: PartnerFunds, round_id: str) -> dict[str, Decimal]:
    """Every check of the deal (its shoe, its commitment, the stakes on a coup as it will be opened), writing
    nothing: run in a transaction rolled back, before the partner is asked to debit the player."""
    with transaction.atomic():
        shoe = _shoe_checked(asked)
        coup = private_coup_open(shoe=shoe, player=asked.user, round_id=round_id)
        bets = bet_rebet_stakes(user=asked.user, coup=coup) if asked.bets is None else asked.bets
        stakes = bet_batch_check(user=asked.user, coup=coup, bets=bets, from_partner=funds)
        transaction.set_rollback(True)
    return stakes


def _shoe_checked(asked: RngDealAsked) -> Shoe:
    """The player's shoe in play, locked, which must be the one whose commitment their page showed. A deal
    never makes a shoe (the page or the partner's GET does, and the deal that ends one): a refused deal would
    shuffle one under the table's lock, only to roll it back, on every request."""
    shoe = private_shoe_locked(table_id=asked.table.pk, player_id=asked.user.pk)
    table_dealt_on_demand_check(asked.table if shoe is None else shoe.table)  # the shoe's: the table as it is now
    if shoe is None or shoe.commitment != asked.commitment or shoe_is_finished(shoe=shoe):
        now = f"your shoe is now shoe {shoe.number}" if shoe is not None else "your shoe has ended"
        raise TableError(
            f"{now}: reload the page to see its commitment before you deal",
            code=ErrorCode.SHOE_CHANGED,
            details={"shoe": shoe.number if shoe is not None else None},
        )
    return shoe


def _dealt(*, shoe: Shoe, coup: Coup, placed: PlacedBatch) -> tuple[dict, dict[int, Decimal]]:
    """The coup, bets placed, dealt and settled in the caller's transaction: its answer but the balance, and the
    wallets' balances after (by user id). Nothing is read back: the bets, the cards, the payouts and the shoe are
    as this transaction wrote them."""
    dealt = private_coup_deal(coup=coup, shoe=shoe)
    bets = [
        OpenBet(bet.pk, bet.user_id, bet.bet_type, bet.stake, bet.stake_account_id, placed.currency)
        for bet in placed.bets
    ]
    settled = private_coup_settle(coup=coup, result=dealt.result, bets=bets)
    returned = {closed.bet.bet_type: closed.returned for closed in settled.closed}
    answer = {
        "round_id": coup.round_id,
        "number": coup.number,
        "shoe_number": shoe.number,
        "cards": [{"hand": card.hand, "card": card.card} for card in dealt.cards],
        "player_total": coup.player_total,
        "banker_total": coup.banker_total,
        "winner": coup.winner,
        "player_pair": coup.player_pair,
        "banker_pair": coup.banker_pair,
        "natural": coup.natural,
        "bets": {bet.bet_type: str(bet.stake) for bet in placed.bets},
        "returned": {bet_type: str(amount) for bet_type, amount in returned.items()},
        "outcomes": {closed.bet.bet_type: closed.outcome for closed in settled.closed},
        "total_returned": str(sum(returned.values(), Decimal(0))),
        "shoe_ended": _revealed(shoe) if shoe.revealed else None,
        "shoe": None if shoe.revealed else rng_shoe_public(shoe=shoe),
        "replayed": False,
    }
    return answer, settled.wallet_balances


def _revealed(shoe: Shoe) -> dict:
    secrets = shoe.reveal()
    return {
        "number": shoe.number,
        "commitment": shoe.commitment,
        "card_order": secrets.card_order,
        "salt": secrets.salt,
    }
