"""Wallets: the cashier's deposits and withdrawals (once per idempotency key), the balance bound, and
the wallet's live event."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from casino.live import user_event_send
from casino.money import MAX_AMOUNT
from tables.audit import audit_record
from wagering.amounts import amount_checked
from wagering.errors import IdempotencyConflict, WalletRejected
from wagering.ledger import ledger_post
from wagering.locks import wallet_locked_for_transfer
from wagering.models import (
    Account,
    IdempotencyKey,
    LedgerTransaction,
)
from wagering.selectors import (
    wallet_open_largest_return,
)

User = AbstractBaseUser
MAX_IDEMPOTENCY_KEY = 100
CASHIER = "cashier"


def deposit_bound_check(*, wallet: Account, amount: Decimal) -> None:
    """A deposit leaves room in the (locked) wallet for all its open bets may return (``_BalanceBound``)."""
    open_return = wallet_open_largest_return(user_id=wallet.user_id)
    if wallet.balance + amount + open_return > MAX_AMOUNT:
        raise WalletRejected(
            "amount_too_large",
            f"a deposit of {amount} would take the balance of {wallet.balance}, with up to {open_return} "
            f"its open bets may return, past {MAX_AMOUNT}, the most a wallet holds",
            {
                "balance": str(wallet.balance),
                "amount": str(amount),
                "open_largest_return": str(open_return),
                "max_balance": str(MAX_AMOUNT),
            },
        )


def wallet_event_send(*, user_id: int, balance: Decimal) -> None:
    """The wallet's new balance to its player's browsers, on commit."""
    user_event_send(user_id=user_id, event_type="wallet", data={"balance": str(balance)})


def wallet_deposit(
    *, user: User, amount: Decimal | int | str, idempotency_key: str, actor: User | None = None, reason: str = ""
) -> LedgerTransaction:
    """Credit the player's wallet from the operator's float. The same key twice moves money once."""
    return _wallet_move(
        kind=LedgerTransaction.Kind.DEPOSIT,
        user=user,
        amount=amount,
        idempotency_key=idempotency_key,
        actor=actor,
        reason=reason,
    )


def wallet_withdraw(
    *, user: User, amount: Decimal | int | str, idempotency_key: str, actor: User | None = None, reason: str = ""
) -> LedgerTransaction:
    """Debit the player's wallet back to the operator's float, never below zero. Idempotent by key."""
    return _wallet_move(
        kind=LedgerTransaction.Kind.WITHDRAWAL,
        user=user,
        amount=amount,
        idempotency_key=idempotency_key,
        actor=actor,
        reason=reason,
    )


def _wallet_move(
    *, kind: str, user: User, amount: object, idempotency_key: str, actor: User | None, reason: str
) -> LedgerTransaction:
    amount = amount_checked(amount, error=WalletRejected, what=f"the {kind} amount")
    if not isinstance(idempotency_key, str) or not 0 < len(idempotency_key) <= MAX_IDEMPOTENCY_KEY:
        raise WalletRejected(
            "invalid_idempotency_key", f"an idempotency key of 1 to {MAX_IDEMPOTENCY_KEY} characters is required"
        )
    request = {"operation": kind, "user": str(user.pk), "amount": str(amount)}
    with transaction.atomic():
        try:
            with transaction.atomic():  # first, so a concurrent request with the key waits for this one
                record = IdempotencyKey.objects.create(key=idempotency_key, operation=kind, request=request)
        except IntegrityError:
            return _idempotent_replay(key=idempotency_key, request=request)
        wallet = wallet_locked_for_transfer(user, kind=kind, amount=amount)
        before = wallet.balance
        if kind == LedgerTransaction.Kind.DEPOSIT:
            deposit_bound_check(wallet=wallet, amount=amount)
        signed = amount if kind == LedgerTransaction.Kind.DEPOSIT else -amount
        ledger_transaction = ledger_post(
            kind=kind,
            wallet_legs={wallet: signed},
            system_legs={Account.Kind.PARTNER_FLOAT: -signed},
            actor=actor,
            reason=reason,
        )
        IdempotencyKey.objects.filter(pk=record.pk).update(transaction=ledger_transaction)
        audit_record(
            action=f"wallet_{kind}",
            actor=actor,
            actor_label=CASHIER,
            obj=wallet,
            before={"balance": str(before)},
            after={"balance": str(wallet.balance), "amount": str(amount), "idempotency_key": idempotency_key},
            reason=reason,
        )
        wallet_event_send(user_id=wallet.user_id, balance=wallet.balance)
    return ledger_transaction


def _idempotent_replay(*, key: str, request: dict) -> LedgerTransaction:
    record = IdempotencyKey.objects.select_related("transaction").get(key=key)
    if record.request != request:
        raise IdempotencyConflict(
            "idempotency_conflict",
            f"idempotency key {key!r} was used for a {record.request['operation']} of {record.request['amount']} "
            f"to user {record.request['user']}, not a {request['operation']} of {request['amount']} "
            f"to user {request['user']}",
            {"key": key, **{f"first_{name}": value for name, value in record.request.items()}},
        )
    return record.transaction
