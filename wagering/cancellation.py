"""Cancelling bets: undo the last batch, remove all (while betting is open), and refunding every open
bet of a coup being voided."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from kernel.errors import ErrorCode
from kernel.live import user_events_send
from tables.audit import audit_record
from tables.locks import coup_only_locked
from tables.models import Coup
from wagering.errors import BetConflict, SettlementRefused
from wagering.ledger import SETTLEMENT, ledger_post
from wagering.limits import differential_check
from wagering.locks import stake_accounts_locked
from wagering.models import (
    ZERO,
    Account,
    Bet,
    BetBatch,
    BetSettlement,
    LedgerTransaction,
    money,
)
from wagering.placement import (
    bets_changed_events,
    betting_open_check,
    coup_betting_locked,
    totals_added,
)
from wagering.placement_writers import stake_totals_move
from wagering.selectors import (
    coup_bet_totals,
    coup_max_differential,
)
from wagering.settlement import ClosedBet, bets_by_user, bets_close, by_currency, open_bets, returns_by_account

User = AbstractBaseUser


@transaction.atomic
def bet_batch_undo(*, user: User, coup: Coup) -> BetBatch:
    """Undo: cancel the player's last confirmed batch on the coup while betting is open, and refund it."""
    coup_betting_locked(coup)
    betting_open_check(coup)
    batch = BetBatch.objects.filter(coup=coup, user=user, cancelled_at__isnull=True).order_by("-pk").first()
    if batch is None:
        raise BetConflict(
            f"there is no bet to undo on coup {coup.round_id}",
            code=ErrorCode.NO_BETS,
            details={"round_id": coup.round_id},
        )
    _batches_cancel(coup=coup, user=user, batches=[batch], action="bet_batch_undone")
    return batch


@transaction.atomic
def bet_remove_all(*, user: User, coup: Coup) -> list[BetBatch]:
    """Remove: cancel all the player's bets on the coup while betting is open, and refund them."""
    coup_betting_locked(coup)
    betting_open_check(coup)
    batches = list(BetBatch.objects.filter(coup=coup, user=user, cancelled_at__isnull=True).order_by("pk"))
    if not batches:
        raise BetConflict(
            f"there are no bets to remove on coup {coup.round_id}",
            code=ErrorCode.NO_BETS,
            details={"round_id": coup.round_id},
        )
    _batches_cancel(coup=coup, user=user, batches=batches, action="bets_removed")
    return batches


def _batches_cancel(*, coup: Coup, user: User, batches: list[BetBatch], action: str) -> None:
    bets = list(Bet.objects.filter(batch__in=batches, state=Bet.State.ACCEPTED))
    cancelled: dict[str, Decimal] = defaultdict(lambda: ZERO)
    for bet in bets:
        cancelled[bet.bet_type] -= bet.stake
    refunds: dict[int, Decimal] = defaultdict(lambda: ZERO)
    for bet in bets:
        refunds[bet.stake_account_id] += bet.stake
    accounts = stake_accounts_locked(set(refunds))
    # A player's stakes are all in one currency: their wallet's, or their partner's.
    currency = next(iter(accounts.values())).currency
    table_before = coup_bet_totals(coup=coup, currency=currency)
    table_after = totals_added(table_before, cancelled)
    differential_check(
        limit=coup_max_differential(coup=coup, currency=currency),
        currency=currency,
        before=table_before,
        after=table_after,
    )
    total = -money(sum(cancelled.values()))
    ledger_transaction = ledger_post(
        kind=LedgerTransaction.Kind.BET_CANCEL,
        currency=currency,
        wallet_legs={accounts[account_id]: amount for account_id, amount in refunds.items()},
        system_legs={Account.Kind.BETS_IN_PLAY: -total},
        coup=coup,
        actor=user,
    )
    wallet = next((account for account in accounts.values() if account.is_wallet), None)
    balance = wallet.balance if wallet is not None else None
    Bet.objects.filter(pk__in=[bet.pk for bet in bets]).update(state=Bet.State.CANCELLED)
    # The bet types the player keeps no stake on leave their bettors.
    own_after = coup_bet_totals(coup=coup, user=user)
    stake_totals_move(
        coup=coup, currency=currency, changes=cancelled, bettors=dict.fromkeys(cancelled.keys() - own_after.keys(), -1)
    )
    now = timezone.now()
    BetBatch.objects.filter(pk__in=[batch.pk for batch in batches]).update(
        cancellation=ledger_transaction, cancelled_at=now
    )
    for batch in batches:
        batch.cancellation, batch.cancelled_at = ledger_transaction, now
    audit_record(
        action=action,
        actor=user,
        table=coup.table,
        obj=batches[-1],
        after={"round_id": coup.round_id, "refunded": str(total), "balance": str(balance)},
    )
    bets_changed_events(
        coup=coup, user_id=user.pk, balance=balance, own=own_after, currency=currency, table_totals=table_after
    )


def coup_bets_refund(*, coup: Coup) -> list[LedgerTransaction]:
    """Refund every open bet of a coup being voided, inside the caller's transaction, one ledger
    transaction per currency staked in. Idempotent.

    A settled coup is final: its bets cannot be refunded.
    """
    with transaction.atomic():
        coup = coup_only_locked(coup.pk)
        if coup.state == Coup.State.SETTLED:
            raise SettlementRefused(
                f"coup {coup.round_id} is settled: its bets cannot be refunded",
                code=ErrorCode.SETTLED,
                details={"round_id": coup.round_id},
            )
        bets = open_bets(coup)
        if not bets:
            return []
        closed = [ClosedBet(bet, BetSettlement.Outcome.REFUND, bet.stake) for bet in bets]
        by_user = bets_by_user(closed)
        refunds = {user_id: money(sum(each.returned for each in mine)) for user_id, mine in by_user.items()}
        accounts = stake_accounts_locked(set(returns_by_account(closed)))
        wallets = {account.user_id: account for account in accounts.values() if account.is_wallet}
        transactions, refunded = {}, {}
        for currency, in_currency in by_currency(closed).items():
            refunds_by_account = returns_by_account(in_currency)
            refunded[currency] = str(money(sum(refunds_by_account.values())))
            transactions[currency] = ledger_post(
                kind=LedgerTransaction.Kind.REFUND,
                currency=currency,
                wallet_legs={accounts[account_id]: amount for account_id, amount in refunds_by_account.items()},
                system_legs={Account.Kind.BETS_IN_PLAY: -money(sum(refunds_by_account.values()))},
                coup=coup,
                reason=f"coup {coup.round_id} void",
            )
        bets_close(coup=coup, closed=closed, transactions=transactions, state=Bet.State.REFUNDED)
        audit_record(
            action="coup_bets_refunded",
            actor_label=SETTLEMENT,
            table=coup.table,
            obj=coup,
            after={"bets": len(bets), "refunded": refunded},
        )
        user_events_send(
            event_type="bets_refunded",
            data_by_user={
                user_id: {
                    "round_id": coup.round_id,
                    "refunded": str(refunds[user_id]),
                    "balance": str(wallets[user_id].balance) if user_id in wallets else None,
                }
                for user_id in refunds
            },
        )
    return list(transactions.values())
