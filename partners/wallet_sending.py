"""Wallet transactions' records and their sending: a credit, rollback or correction's debit is sent again
until the partner acknowledges it (``partners.tasks``), with backoff; the periodic sweep sends again what
is due and rolls back a debit whose process died between the partner's answer and the bet."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from kernel.money import money
from partners.models import PartnerPlayer, WalletTransaction
from partners.wallet_calls import wallet_transaction_call
from tables.models import Coup, ResultCorrection
from wagering.wallets import wallet_event_send

RETRY_BASE_SECONDS = 5  # then 10, 20, ... up to RETRY_MAX_SECONDS, for as long as it takes
RETRY_MAX_SECONDS = 10 * 60
ATTEMPT_SECONDS = 10.0  # a credit's or rollback's attempt: nobody waits on it
STUCK_AFTER_ATTEMPTS = 5  # a transaction still pending after this many attempts shows as stuck
DEBIT_ORPHANED_SECONDS = 60  # a bet's debit this old with no bet and no rollback: its process died mid-way
SWEEP_BATCH = 1000


def retry_delay_seconds(attempts: int) -> int:
    return min(RETRY_BASE_SECONDS * 2 ** max(attempts - 1, 0), RETRY_MAX_SECONDS)


def wallet_transaction_record(
    *,
    kind: str,
    player: PartnerPlayer,
    amount: Decimal,
    coup: Coup | None,
    extra: dict,
    rolls_back: WalletTransaction | None = None,
    correction: ResultCorrection | None = None,
) -> WalletTransaction:
    """A wallet transaction with its request body, in the player's partner's currency, due now."""
    transaction_id = uuid.uuid4()
    currency = player.partner.currency
    body = {
        "transaction_id": str(transaction_id),
        "player_id": player.external_id,
        "currency": currency,
        "amount": str(money(amount)),
        **extra,
    }
    return WalletTransaction.objects.create(
        transaction_id=transaction_id,
        partner=player.partner,
        player=player,
        kind=kind,
        amount=money(amount),
        currency=currency,
        coup=coup,
        correction=correction,
        rolls_back=rolls_back,
        body=body,
        next_attempt_at=timezone.now(),
    )


def rollback_record(*, debit: WalletTransaction) -> tuple[WalletTransaction, bool]:
    """The rollback of a debit (its whole amount), and whether it is new: a debit is rolled back once."""
    existing = WalletTransaction.objects.filter(rolls_back=debit).first()
    if existing is not None:
        return existing, False
    rollback = wallet_transaction_record(
        kind=WalletTransaction.Kind.ROLLBACK,
        player=debit.player,
        amount=debit.amount,
        coup=debit.coup,
        rolls_back=debit,
        extra={"rolled_back_transaction_id": str(debit.transaction_id), "round_id": debit.body["round_id"]},
    )
    return rollback, True


def wallet_transaction_attempt(*, pk: int) -> bool:
    """One attempt of a credit, rollback or correction's debit; True when there is nothing more to do."""
    wallet_transaction = WalletTransaction.objects.select_related("partner", "player").get(pk=pk)
    if wallet_transaction.state != WalletTransaction.State.PENDING:
        return True
    answer = wallet_transaction_call(wallet_transaction=wallet_transaction, deadline_seconds=ATTEMPT_SECONDS)
    if wallet_transaction.state == WalletTransaction.State.PENDING:
        delay = retry_delay_seconds(wallet_transaction.attempts)
        WalletTransaction.objects.filter(pk=pk, state=WalletTransaction.State.PENDING).update(
            next_attempt_at=timezone.now() + timedelta(seconds=delay)
        )
        return False
    if answer.balance is not None:
        wallet_event_send(user_id=wallet_transaction.player.user_id, balance=answer.balance)
    return True


def pending_to_send():
    """Pending transactions that are sent by the queue: all but a bet's debit (the bet itself asks it)."""
    pending = WalletTransaction.objects.filter(state=WalletTransaction.State.PENDING)
    return pending.exclude(kind=WalletTransaction.Kind.DEBIT, correction__isnull=True)


def wallet_transactions_due(*, now: datetime | None = None) -> list[int]:
    """What the sweep sends: debits orphaned by a dead process, failed and rolled back, then every pending
    transaction whose next attempt is due (oldest first)."""
    now = now or timezone.now()
    orphaned = WalletTransaction.objects.filter(
        kind=WalletTransaction.Kind.DEBIT,
        correction__isnull=True,
        batch__isnull=True,
        rollback__isnull=True,
        created_at__lt=now - timedelta(seconds=DEBIT_ORPHANED_SECONDS),
    ).exclude(state=WalletTransaction.State.REFUSED)
    rollbacks = []
    for debit in orphaned.select_related("player__partner", "coup")[:SWEEP_BATCH]:
        with transaction.atomic():
            # Under the debit's lock, still with no bets: a placement that holds it (``seamless.debit_claimed``)
            # is skipped, and one that comes after finds the rollback and is refused.
            unplaced = WalletTransaction.objects.filter(pk=debit.pk, batch__isnull=True)
            if unplaced.select_for_update(skip_locked=True).values_list("pk").first() is None:
                continue
            WalletTransaction.objects.filter(pk=debit.pk, state=WalletTransaction.State.PENDING).update(
                state=WalletTransaction.State.FAILED, finished_at=now, last_error="no answer recorded: rolled back"
            )
            rollbacks.append(rollback_record(debit=debit)[0].pk)
    due = pending_to_send().filter(next_attempt_at__lte=now).order_by("next_attempt_at")
    return rollbacks + [pk for pk in due.values_list("pk", flat=True)[:SWEEP_BATCH] if pk not in rollbacks]
