"""A partner's seamless wallet: the player's money stays with the partner, who debits a bet and is asked
to credit what a round returns (``docs/api.md``, "Seamless wallet").

A bet is checked by every rule first (writing nothing), then its debit is recorded and committed before
the partner is called, within ``SEAMLESS_WALLET_DEADLINE_SECONDS``: acknowledged, the bets are placed
(their stakes on our books from the partner's float); refused, the bet is refused; no valid answer, the
bet is refused and the debit rolled back. Credits (one per player and round, zero for a round lost),
rollbacks (a void, a bet undone, a debit that failed) and a correction's adjustments are written in the
transaction that settles, voids or corrects, and sent on commit by the ``wallet`` queue's task, again
until acknowledged (``partners.tasks``). Nothing is lost: a transaction the worker never finished is
sent again by the periodic sweep, and the partner de-duplicates by ``transaction_id``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from decimal import Decimal

from django.core.cache import cache
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from kernel.errors import ErrorCode
from kernel.money import money
from partners.identifiers import WalletUnavailable
from partners.models import Partner, PartnerPlayer, WalletTransaction
from partners.tasks import wallet_transaction_send
from partners.wallet_calls import Outcome, wallet_deadline_seconds, wallet_post, wallet_transaction_call
from partners.wallet_sending import pending_to_send, rollback_record, wallet_transaction_record
from tables.models import Coup, ResultCorrection
from wagering.errors import BetRejected
from wagering.models import Account, Bet, BetAdjustment, BetBatch, BetSettlement
from wagering.placement import PartnerFunds, PlacedBatch, bet_batch_check, bet_batch_place
from wagering.wallets import wallet_event_send

BALANCE_CACHE_SECONDS = 5

# --- Bets ----------------------------------------------------------------------------------------


def seamless_bet_place(
    *,
    player: PartnerPlayer,
    coup: Coup,
    bets: dict,
    placed_record: Callable[[PlacedBatch], None] | None = None,
) -> PlacedBatch:
    """Place a batch of bets paid by the partner's wallet: all accepted, or none (``BetRejected``).

    ``placed_record`` runs in the placement's transaction (the partner API's idempotency record)."""
    partner = player.partner
    funds = PartnerFunds(code=partner.code, currency=partner.currency)
    stakes = bet_batch_check(user=player.user, coup=coup, bets=bets, from_partner=funds)
    debit, balance = seamless_debit(
        player=player, stakes=stakes, round_id=coup.round_id, table_code=coup.table.code, coup=coup
    )
    try:
        with transaction.atomic():
            debit_claimed(debit=debit)
            placed = bet_batch_place(user=player.user, coup=coup, bets=stakes, from_partner=funds)
            WalletTransaction.objects.filter(pk=debit.pk).update(batch=placed.batch)
            if placed_record is not None:
                placed_record(placed)
    except Exception:  # e.g. betting closed while the partner answered: the debit is given back
        rollback_unless_placed(debit=debit)
        raise
    wallet_event_send(user_id=player.user_id, balance=balance, round_id=coup.round_id, bets=placed.own_totals)
    return replace(placed, balance=balance)


def seamless_debit(
    *, player: PartnerPlayer, stakes: dict[str, Decimal], round_id: str, table_code: str, coup: Coup | None
) -> tuple[WalletTransaction, Decimal]:
    """The debit of stakes every rule has checked, recorded and committed, then asked of the partner's wallet
    with no transaction of ours open: acknowledged, the debit and the balance the partner answered (the caller
    places the bets, setting the debit's ``batch``, or gives it back: ``rollback_send``); refused,
    ``BetRejected`` (nothing to undo); no valid answer, ``WalletUnavailable`` and the debit rolled back.
    ``coup``: the round's, or ``None`` for one not opened yet (a table dealt on demand sets it with the bets)."""
    partner = player.partner
    debit = _debit_record(player=player, stakes=stakes, round_id=round_id, table_code=table_code, coup=coup)
    answer = wallet_transaction_call(wallet_transaction=debit, deadline_seconds=wallet_deadline_seconds())
    if answer.outcome is Outcome.REFUSED:
        raise _refusal(partner=partner, code=answer.error_code, balance=answer.balance)
    if answer.outcome is Outcome.FAILED:
        rollback_send(debit=debit)
        raise WalletUnavailable(
            f"{partner.name}'s wallet did not confirm the bet in time: nothing was taken, try again",
            details={"transaction_id": str(debit.transaction_id)},
        )
    return debit, answer.balance


def debit_claimed(*, debit: WalletTransaction) -> None:
    """Lock an acknowledged debit for the bets it pays, in their transaction, before they are placed; refused
    (``WalletUnavailable``) if the sweep rolled it back meanwhile: a placement slower than
    ``DEBIT_ORPHANED_SECONDS`` must not be paid by a debit already given back. The sweep locks the debit too and
    skips it while it is held (``partners.wallet_sending``), so one of the two wins, never both."""
    # FOR NO KEY UPDATE: a void's rollback row (its foreign key's FOR KEY SHARE) does not wait on it, so a bet
    # (the debit, then the coup) and a void (the coup, then the rollback) never wait on each other.
    WalletTransaction.objects.select_for_update(no_key=True).filter(pk=debit.pk).values_list("pk").get()
    if WalletTransaction.objects.filter(rolls_back=debit.pk).exists():  # read after the lock: the sweep's, if any
        raise WalletUnavailable(
            "the bet took too long and its debit was given back: nothing was taken, try again",
            details={"transaction_id": str(debit.transaction_id)},
        )


def _refusal(*, partner: Partner, code: str, balance: Decimal | None) -> BetRejected:
    details = {"wallet_error": code, **({"balance": str(balance)} if balance is not None else {})}
    if code == "insufficient_funds":
        text = f": the balance is {balance}" if balance is not None else ""
        return BetRejected(f"not enough funds for these bets{text}", code=ErrorCode.INSUFFICIENT_FUNDS, details=details)
    return BetRejected(
        f"{partner.name}'s wallet refused the bet ({code})", code=ErrorCode.WALLET_REFUSED, details=details
    )


def _debit_record(
    *, player: PartnerPlayer, stakes: dict[str, Decimal], round_id: str, table_code: str, coup: Coup | None
) -> WalletTransaction:
    """The debit, committed before the partner hears of it: a crash after the call leaves its record."""
    with transaction.atomic():
        return wallet_transaction_record(
            kind=WalletTransaction.Kind.DEBIT,
            player=player,
            amount=money(sum(stakes.values())),
            coup=coup,
            extra={
                "round_id": round_id,
                "table": table_code,
                "bets": [{"bet_type": bet_type, "stake": str(stake)} for bet_type, stake in stakes.items()],
            },
        )


def rollback_unless_placed(*, debit: WalletTransaction) -> None:
    """After the bets' transaction failed: give the debit back unless its bets were placed after all (an error
    at the commit's acknowledgement, the commit itself done). If that cannot be read (the database lost), nothing
    is sent now: the sweep gives back a debit still without bets, under its lock (``wallet_sending``)."""
    if not WalletTransaction.objects.filter(pk=debit.pk, batch__isnull=False).exists():
        rollback_send(debit=debit)


def rollback_send(*, debit: WalletTransaction) -> WalletTransaction:
    """Give a debit back: a rollback of its amount, sent (on commit) until acknowledged; once per debit."""
    with transaction.atomic():
        rollback, new = rollback_record(debit=debit)
        if new:
            _send_on_commit(rollback)
    return rollback


def batches_rollback(*, batches: Iterable[BetBatch]) -> None:
    """Bets undone or removed while betting is open: the debits that paid them, rolled back."""
    for debit in WalletTransaction.objects.filter(batch__in=list(batches)).select_related("player__partner"):
        rollback_send(debit=debit)


# --- Rounds: credits, voids, corrections ---------------------------------------------------------


def round_credits_record(*, coup: Coup) -> None:
    """Settlement's credits, in its transaction: one per player paid by a seamless wallet, zero for a loss."""
    returned = (
        BetSettlement.objects.filter(
            bet__coup=coup, bet__state=Bet.State.SETTLED, bet__stake_account__kind=Account.Kind.PARTNER_FLOAT
        )
        .values_list("bet__user_id")
        .annotate(total=Sum("returned"))
        .order_by()
    )
    returned_by_user = {user_id: money(total) for user_id, total in returned}
    if not returned_by_user:
        return
    debits = _acknowledged_debits(coup=coup, user_ids=returned_by_user)
    for player in PartnerPlayer.objects.filter(user_id__in=returned_by_user).select_related("partner"):
        _send_on_commit(
            wallet_transaction_record(
                kind=WalletTransaction.Kind.CREDIT,
                player=player,
                amount=returned_by_user[player.user_id],
                coup=coup,
                extra={
                    "round_id": coup.round_id,
                    "table": coup.table.code,
                    "debit_transaction_ids": debits.get(player.user_id, []),
                },
            )
        )


def round_rollbacks_record(*, coup: Coup) -> None:
    """A void's rollbacks, in its transaction: every acknowledged debit of the round not yet given back."""
    debits = WalletTransaction.objects.filter(
        coup=coup, kind=WalletTransaction.Kind.DEBIT, state=WalletTransaction.State.ACKNOWLEDGED, rollback__isnull=True
    ).select_related("player__partner")
    for debit in debits:
        rollback_send(debit=debit)


def correction_adjustments_record(*, correction: ResultCorrection, coup: Coup) -> None:
    """A result correction's adjusting credit (or debit) per player paid by a seamless wallet."""
    adjustments = (
        BetAdjustment.objects.filter(correction=correction, bet__stake_account__kind=Account.Kind.PARTNER_FLOAT)
        .values_list("bet__user_id")
        .annotate(after=Sum("returned_after"), before=Sum("returned_before"))
        .order_by()
    )
    changes = {user_id: money(after) - money(before) for user_id, after, before in adjustments}
    for player in PartnerPlayer.objects.filter(user_id__in=changes).select_related("partner"):
        change = changes[player.user_id]
        if not change:
            continue
        kind = WalletTransaction.Kind.CREDIT if change > 0 else WalletTransaction.Kind.DEBIT
        extra = {"round_id": coup.round_id, "table": coup.table.code, "correction": correction.pk}
        if kind == WalletTransaction.Kind.CREDIT:
            extra["debit_transaction_ids"] = _acknowledged_debits(coup=coup, user_ids={player.user_id}).get(
                player.user_id, []
            )
        else:
            extra["bets"] = []
        _send_on_commit(
            wallet_transaction_record(
                kind=kind, player=player, amount=abs(change), coup=coup, correction=correction, extra=extra
            )
        )


def _acknowledged_debits(*, coup: Coup, user_ids: Iterable[int]) -> dict[int, list[str]]:
    debits = WalletTransaction.objects.filter(
        coup=coup,
        kind=WalletTransaction.Kind.DEBIT,
        state=WalletTransaction.State.ACKNOWLEDGED,
        player__user_id__in=list(user_ids),
        batch__isnull=False,
        correction__isnull=True,
        rollback__isnull=True,  # not a batch undone or removed: its debit was given back
    ).order_by("pk")
    by_user: dict[int, list[str]] = defaultdict(list)
    for user_id, transaction_id in debits.values_list("player__user_id", "transaction_id"):
        by_user[user_id].append(str(transaction_id))
    return by_user


# --- Sending ------------------------------------------------------------------------------------


def _send_on_commit(wallet_transaction: WalletTransaction) -> None:
    pk = wallet_transaction.pk
    transaction.on_commit(lambda: wallet_transaction_send.delay(pk), robust=True)  # broker down: the sweep


def wallet_transactions_retry(*, partner: Partner | None = None, ids: list[int] | None = None) -> int:
    """Send every pending transaction (of the partner, or these) now: the admin's action and the command."""
    pending = pending_to_send()
    if partner is not None:
        pending = pending.filter(partner=partner)
    if ids is not None:
        pending = pending.filter(pk__in=ids)
    due = list(pending.values_list("pk", flat=True))
    WalletTransaction.objects.filter(pk__in=due).update(next_attempt_at=timezone.now())
    for pk in due:
        wallet_transaction_send.delay(pk)
    return len(due)


def seamless_balance(*, player: PartnerPlayer) -> Decimal | None:
    """The player's balance as the partner's wallet answers it (None if it does not, in time). An answer is
    kept ``BALANCE_CACHE_SECONDS``: a page reloaded in a loop does not become a stream of calls to the
    partner's wallet (the balances that bets, credits and rollbacks answer reach the page live)."""
    key = f"seamless-balance:{player.pk}"
    cached = cache.get(key)
    if cached is not None:
        return Decimal(cached)
    answer = wallet_post(
        partner=player.partner,
        operation="balance",
        body={"player_id": player.external_id, "currency": player.partner.currency},
        deadline_seconds=wallet_deadline_seconds(),
    )
    if answer.outcome is not Outcome.ACKNOWLEDGED:
        return None
    cache.set(key, str(answer.balance), BALANCE_CACHE_SECONDS)
    return answer.balance
