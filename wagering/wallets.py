"""Wallets: the one transfer path between a wallet and a float, the cashier's deposits and withdrawals
(once per idempotency key), the balance bound, and the wallet's live event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from kernel.errors import ErrorCode
from kernel.live import user_events_send
from kernel.money import MAX_AMOUNT
from tables.audit import audit_record
from wagering.amounts import amount_checked, amounts_as_strings
from wagering.errors import IdempotencyConflict, WalletRejected
from wagering.idempotency import request_once
from wagering.ledger import ledger_post
from wagering.locks import float_locked, wallet_locked_for_transfer
from wagering.models import (
    Account,
    IdempotencyKey,
    LedgerTransaction,
)
from wagering.protection.guard import deposit_protection_check
from wagering.selectors import (
    wallet_open_largest_return,
)

User = AbstractBaseUser
WALLET_EVENT = "wallet"  # the live event of a wallet's new balance
MAX_IDEMPOTENCY_KEY = 100
CASHIER = "cashier"


def deposit_bound_check(*, wallet: Account, amount: Decimal) -> None:
    """A deposit leaves room in the (locked) wallet for all its open bets may return (``BalanceBound``)."""
    open_return = wallet_open_largest_return(user_id=wallet.user_id)
    if wallet.balance + amount + open_return > MAX_AMOUNT:
        raise WalletRejected(
            f"a deposit of {amount} would take the balance of {wallet.balance}, with up to {open_return} "
            f"its open bets may return, past {MAX_AMOUNT}, the most a wallet holds",
            code=ErrorCode.AMOUNT_TOO_LARGE,
            details={
                "balance": str(wallet.balance),
                "amount": str(amount),
                "open_largest_return": str(open_return),
                "max_balance": str(MAX_AMOUNT),
            },
        )


def wallet_event_send(
    *, user_id: int, balance: Decimal, round_id: str | None = None, bets: Mapping[str, Decimal] | None = None
) -> None:
    """The wallet's new balance to its player's browsers, on commit; after a change of their bets, with the
    coup's ``round_id`` and their ``bets`` on it as they now stand."""
    wallet_events_send(
        balances={user_id: balance}, round_id=round_id, bets_by_user={user_id: bets} if bets is not None else None
    )


def wallet_events_send(
    *,
    balances: Mapping[int, Decimal],
    round_id: str | None = None,
    bets_by_user: Mapping[int, Mapping[str, Decimal]] | None = None,
) -> None:
    """Many players' new balances (by user id), each to their browsers, on commit: one send for all. After
    their bets on the coup ``round_id`` changed, each player's stakes on it (``bets_by_user``) go with the
    balance, so every page the player has open shows the bets made on any of them (one truth per player)."""
    data_by_user = {user_id: {"balance": str(balance)} for user_id, balance in balances.items()}
    for user_id, bets in (bets_by_user or {}).items():
        data_by_user[user_id].update(round_id=round_id, bets=amounts_as_strings(bets))
    user_events_send(event_type=WALLET_EVENT, data_by_user=data_by_user)


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
            f"an idempotency key of 1 to {MAX_IDEMPOTENCY_KEY} characters is required",
            code=ErrorCode.INVALID_IDEMPOTENCY_KEY,
        )
    request = {"operation": kind, "user": str(user.pk), "amount": str(amount)}

    def move() -> LedgerTransaction:
        return wallet_transfer(
            kind=kind,
            user=user,
            amount=amount,
            float_code="",
            currency=settings.HOUSE_CURRENCY,
            actor=actor,
            ledger_reason=reason,
            audit=TransferAudit(
                action=f"wallet_{kind}", actor_label=CASHIER, after={"idempotency_key": idempotency_key}, reason=reason
            ),
        )

    def conflict(record: IdempotencyKey) -> IdempotencyConflict:
        return IdempotencyConflict(
            f"idempotency key {idempotency_key!r} was used for a {record.request['operation']} of "
            f"{record.request['amount']} to user {record.request['user']}, not a {request['operation']} of "
            f"{request['amount']} to user {request['user']}",
            code=ErrorCode.IDEMPOTENCY_CONFLICT,
            details={"key": idempotency_key, **{f"first_{name}": value for name, value in record.request.items()}},
        )

    outcome = request_once(
        model=IdempotencyKey,
        scope={},
        key=idempotency_key,
        request=request,
        perform=move,
        conflict=conflict,
        fields={"operation": kind},
    )
    return outcome.result


@dataclass(frozen=True)
class TransferAudit:
    """How a transfer is audited: by the cashier (the admin, a staff member) or a partner's API key."""

    action: str
    actor_label: str
    after: dict
    reason: str = ""


def wallet_transfer(
    *,
    kind: str,
    user: User,
    amount: Decimal,
    float_code: str,
    currency: str,
    actor: User | None,
    ledger_reason: str,
    audit: TransferAudit,
) -> LedgerTransaction:
    """The one transfer path: a deposit to the player's wallet from a float, or a withdrawal back to it
    (``float_code``: the partner's, empty for the operator's, whose currency is the house's), in the
    caller's transaction, in ``currency`` (the wallet's and the float's). The wallet is locked first, then
    the float (``wagering.locks``); neither may go past what an account holds."""
    if kind == LedgerTransaction.Kind.DEPOSIT:
        deposit_protection_check(user_id=user.pk, amount=amount, at=timezone.now())
    wallet = wallet_locked_for_transfer(user, kind=kind, amount=amount, currency=currency)
    counterpart = float_locked(float_code, currency=currency)
    before = wallet.balance
    if kind == LedgerTransaction.Kind.DEPOSIT:
        deposit_bound_check(wallet=wallet, amount=amount)
    signed = amount if kind == LedgerTransaction.Kind.DEPOSIT else -amount
    if max(abs(wallet.balance + signed), abs(counterpart.balance - signed)) > MAX_AMOUNT:
        raise WalletRejected(
            f"a {kind} of {amount} would take the balance past {MAX_AMOUNT}, the most an account holds",
            code=ErrorCode.AMOUNT_TOO_LARGE,
            details={"amount": str(amount), "balance": str(before), "maximum": str(MAX_AMOUNT)},
        )
    ledger_transaction = ledger_post(
        kind=kind,
        currency=currency,
        wallet_legs={wallet: signed, counterpart: -signed},
        system_legs={},
        actor=actor,
        reason=ledger_reason,
    )
    audit_record(
        action=audit.action,
        actor=actor,
        actor_label=audit.actor_label,
        obj=wallet,
        before={"balance": str(before)},
        after={"balance": str(wallet.balance), "amount": str(amount), **audit.after},
        reason=audit.reason,
    )
    wallet_event_send(user_id=wallet.user_id, balance=wallet.balance)
    return ledger_transaction
