"""Re-settlement of a settled coup whose result was corrected: compensating transactions, never edits.

``BetSettlement`` rows and ledger entries stay as they were written. Each settled bet is paid again
by the corrected result (the coup's paytables snapshot, rounded down to the cent as at settlement);
the difference with what it returned so far is one ``BetAdjustment``, and all of them one ``correction``
ledger transaction per currency staked in: a leg per player wallet, the house's leg and the player-debt leg.

A wallet never goes below zero: a debit it cannot cover takes what it holds and the rest is owed
(``PlayerAdjustment.owed_change``; the player-debt account's balance is minus what players owe), so the
house's leg is always the full difference and the ledger stays balanced. A later credit from a
correction pays back what the player owes first.

A seated patron's chips are paid or taken back from the table's tray, so in a shift (``no_open_shift``
otherwise, nothing changed): the difference then counts in that shift's report, as every chip the tray moves.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Sum

from baccarat.coup import CoupResult
from kernel.errors import ErrorCode
from kernel.live import user_events_send
from tables.models import Coup, ResultCorrection
from tables.selectors import coup_rules
from wagering.chips import open_shift
from wagering.errors import ChipsRefused
from wagering.ledger import ledger_post
from wagering.locks import stake_accounts_locked
from wagering.models import (
    ZERO,
    Account,
    Bet,
    BetAdjustment,
    LedgerTransaction,
    PlayerAdjustment,
    money,
)
from wagering.selectors import bet_paid

User = AbstractBaseUser


@dataclass(frozen=True)
class _Change:
    bet: Bet
    outcome_before: str
    returned_before: Decimal
    outcome_after: str
    returned_after: Decimal

    @property
    def difference(self) -> Decimal:
        return self.returned_after - self.returned_before


def coup_resettle(
    *, correction: ResultCorrection, coup: Coup, result: CoupResult, actor: User
) -> list[LedgerTransaction]:
    """Pay the coup's settled bets by the corrected ``result``, inside the caller's transaction with the
    coup's row locked: a transaction per currency (none when no bet returns anything different)."""
    changes = _changes(coup=coup, result=result)
    if not changes:
        return []
    by_user: dict[int, list[_Change]] = defaultdict(list)
    seated_by_currency: dict[str, Decimal] = defaultdict(lambda: ZERO)  # a seated patron's chips: the tray pays
    for change in changes:
        if change.bet.user_id is not None:
            by_user[change.bet.user_id].append(change)
    accounts = stake_accounts_locked({change.bet.stake_account_id for change in changes})
    for change in changes:
        if change.bet.user_id is None:
            seated_by_currency[accounts[change.bet.stake_account_id].currency] += change.difference
    _tray_shifts_checked(coup, seated_by_currency)
    wallets = {account.user_id: account for account in accounts.values() if account.is_wallet}
    owed = dict(
        PlayerAdjustment.objects.filter(user_id__in=by_user)
        .values_list("user_id")
        .annotate(total=Sum("owed_change"))
        .order_by()
    )
    adjustments, owed_changes, currencies = {}, {}, {}
    legs: dict[Account, Decimal] = defaultdict(lambda: ZERO)
    for change in changes:
        if change.bet.user_id is None:
            legs[accounts[change.bet.stake_account_id]] += change.difference
    for user_id, mine in by_user.items():
        currencies[user_id] = accounts[mine[0].bet.stake_account_id].currency  # a player's stakes: one currency
        adjustments[user_id] = money(sum(change.difference for change in mine))
        owed_changes[user_id] = ZERO
        for account_id, adjustment in _by_account(mine).items():
            account = accounts[account_id]
            if not account.is_wallet:  # a partner's seamless wallet: the partner is credited or debited
                legs[account] += adjustment
            elif adjustment < 0:  # what the wallet cannot cover is owed
                owed_changes[user_id] = -adjustment - min(account.balance, -adjustment)
                legs[account] += adjustment + owed_changes[user_id]
            else:  # a credit pays back what the player owes first
                owed_changes[user_id] = -min(money(owed.get(user_id)), adjustment)
                legs[account] += adjustment + owed_changes[user_id]
    transactions = {}
    for currency in sorted(set(currencies.values()) | set(seated_by_currency)):
        users = [user_id for user_id, users_currency in currencies.items() if users_currency == currency]
        transactions[currency] = ledger_post(
            kind=LedgerTransaction.Kind.CORRECTION,
            currency=currency,
            wallet_legs={account: amount for account, amount in legs.items() if account.currency == currency},
            system_legs={
                Account.Kind.HOUSE: -sum((adjustments[user_id] for user_id in users), ZERO),
                Account.Kind.PLAYER_DEBT: -sum((owed_changes[user_id] for user_id in users), ZERO),
                Account.Kind.CHIP_TRAY: -seated_by_currency[currency],
            },
            coup=coup,
            actor=actor,
            reason=f"result correction {correction.pk}: {correction.reason}",
        )
    BetAdjustment.objects.bulk_create(
        BetAdjustment(
            correction=correction,
            bet=change.bet,
            outcome_before=change.outcome_before,
            returned_before=change.returned_before,
            outcome_after=change.outcome_after,
            returned_after=change.returned_after,
            transaction=transactions[accounts[change.bet.stake_account_id].currency],
        )
        for change in changes
    )
    PlayerAdjustment.objects.bulk_create(
        PlayerAdjustment(
            correction=correction,
            user_id=user_id,
            adjustment=adjustments[user_id],
            owed_change=owed_changes[user_id],
            balance_after=wallets[user_id].balance if user_id in wallets else ZERO,
            transaction=transactions[currencies[user_id]],
        )
        for user_id in by_user
    )
    user_events_send(
        event_type="result_corrected",
        data_by_user={
            user_id: {
                "round_id": coup.round_id,
                "before": _result_summary(correction.before),
                "after": _result_summary(correction.after),
                "adjustment": str(adjustments[user_id]),
                "currency": currencies[user_id],
                "owed": str(money(owed.get(user_id)) + owed_changes[user_id]),
                "balance": str(wallets[user_id].balance) if user_id in wallets else None,
                "bets": [
                    {
                        "bet_type": change.bet.bet_type,
                        "stake": str(change.bet.stake),
                        "outcome_before": change.outcome_before,
                        "returned_before": str(change.returned_before),
                        "outcome": change.outcome_after,
                        "returned": str(change.returned_after),
                    }
                    for change in mine
                ],
            }
            for user_id, mine in by_user.items()
        },
    )
    return list(transactions.values())


def _tray_shifts_checked(coup: Coup, seated_by_currency: dict[str, Decimal]) -> None:
    """The approval of a coup with seated bets holds the table's lock (``tables.corrections``), as a shift's
    closing count takes it (``chips.tray_count``): a shift closed before is seen here, one closing meanwhile
    waits and counts this."""
    for currency, difference in sorted(seated_by_currency.items()):
        if difference and open_shift(table=coup.table, currency=currency) is None:
            raise ChipsRefused(
                f"the correction pays seated patrons' chips at table {coup.table.code} in {currency} from the tray,"
                " and no shift is open there: a pit boss counts the tray first",
                code=ErrorCode.NO_OPEN_SHIFT,
                details={"table": coup.table.code, "currency": currency},
            )


def _by_account(changes: list[_Change]) -> dict[int, Decimal]:
    """A player's changes summed by the account their stakes came from."""
    summed: dict[int, Decimal] = defaultdict(lambda: ZERO)
    for change in changes:
        summed[change.bet.stake_account_id] += change.difference
    return {account_id: money(amount) for account_id, amount in summed.items()}


def _changes(*, coup: Coup, result: CoupResult) -> list[_Change]:
    """The coup's settled bets whose return the corrected result changes, with what they return so far:
    their settlement's, or their latest adjustment's."""
    paytables = coup_rules(coup=coup).table.paytables()
    bets = Bet.objects.filter(coup=coup, state=Bet.State.SETTLED).select_related("settlement").order_by("pk")
    latest = {
        adjustment.bet_id: adjustment for adjustment in BetAdjustment.objects.filter(bet__coup=coup).order_by("pk")
    }
    changes = []
    for bet in bets:
        adjusted = latest.get(bet.pk)
        outcome_before, returned_before = (
            (adjusted.outcome_after, adjusted.returned_after)
            if adjusted is not None
            else (bet.settlement.outcome, bet.settlement.returned)
        )
        outcome_after, returned_after = bet_paid(paytables[bet.bet_type], bet.stake, result)
        if (outcome_after, returned_after) != (outcome_before, returned_before):
            changes.append(_Change(bet, outcome_before, returned_before, outcome_after, returned_after))
    return changes


def _result_summary(result: dict) -> dict:
    return {name: result[name] for name in ("player", "banker", "player_total", "banker_total", "winner")}
