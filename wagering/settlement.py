"""Settlement: every open bet of a resolved coup paid by its paytable, in the caller's transaction
(``casino.lifecycle.settlement`` composes it with the coup's state and the partners' notices)."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from baccarat.coup import CoupResult
from kernel.errors import ErrorCode
from kernel.live import EventsBuiltOnDemand, table_event_send, user_events_send
from kernel.money import MAX_AMOUNT
from tables.audit import audit_record
from tables.models import Coup
from tables.selectors import coup_rules
from wagering.errors import SettlementRefused
from wagering.ledger import SETTLEMENT, ledger_post, rows_insert
from wagering.locks import StakeAccount, coup_stake_accounts_locked
from wagering.models import (
    ZERO,
    Account,
    Bet,
    BetSettlement,
    LedgerTransaction,
    money,
)
from wagering.selectors import (
    bet_paid,
)

User = AbstractBaseUser

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CoupBetsSettled:
    transactions: list[LedgerTransaction]  # one per currency staked in (none: the coup had no bets)
    from_partners: bool  # some stakes came from partners' seamless wallets (their floats): credits are due
    closed: list[ClosedBet]  # each bet with its outcome and what it returned
    wallet_balances: dict[int, Decimal]  # each paid player's wallet after, by user id (not a partner's float)


def coup_bets_settle(
    *, coup: Coup, result: CoupResult | None = None, bets: list[OpenBet] | None = None
) -> CoupBetsSettled:
    """Pay every open bet of a resolved coup by its paytable, inside the caller's transaction, the coup's
    row locked by the caller (``casino.lifecycle.settlement.coup_settle``, which marks the coup settled).
    ``result`` and ``bets`` (its open bets), when the caller has them in hand: a private coup settled in the
    transaction that placed its bets and dealt it (``casino.lifecycle.rng``); else read here.

    Winnings are rounded down to the cent. One ledger transaction per currency staked in, one leg per player.
    The statements do not grow with the bets or the players (bets read as rows, settlements and
    legs written in bulk), and the players' live events go in one on-commit callback.
    """
    if coup.state == Coup.State.RESOLVED and result is None:
        result = coup.result()
    if coup.state != Coup.State.RESOLVED or result is None:
        raise SettlementRefused(
            f"coup {coup.round_id} is {coup.state}: only a resolved coup (with its cards) is settled",
            code=ErrorCode.NOT_RESOLVED,
            details={"round_id": coup.round_id, "state": coup.state},
        )
    bets = open_bets(coup) if bets is None else bets
    paid = _bets_pay(coup=coup, result=result, bets=bets) if bets else NOTHING_PAID
    totals = _totals_by_currency(bets, paid.paid)
    audit_record(
        action="coup_settled", actor_label=SETTLEMENT, table=coup.table, obj=coup, after={"bets": len(bets), **totals}
    )
    if coup.player_id is None:  # a private coup (a table dealt on demand) is its player's alone
        table_event_send(
            table_code=coup.table.code,
            event_type="settlement",
            data={"round_id": coup.round_id, "result": result.as_dict(), "bets": len(bets), **totals},
        )
    return CoupBetsSettled(
        transactions=list(paid.transactions.values()),
        from_partners=paid.from_partners,
        closed=paid.closed,
        wallet_balances=paid.wallet_balances,
    )


@dataclass(frozen=True)
class _Paid:
    transactions: dict[str, LedgerTransaction]  # by currency
    paid: dict[str, Decimal]  # paid back to players (stakes and winnings), by currency
    from_partners: bool
    closed: list[ClosedBet]
    wallet_balances: dict[int, Decimal]  # by user id, after


NOTHING_PAID = _Paid(transactions={}, paid={}, from_partners=False, closed=[], wallet_balances={})


def _totals_by_currency(bets: list[OpenBet], returned: Mapping[str, Decimal]) -> dict:
    """What was staked and returned, per currency (never added across currencies)."""
    staked: dict[str, Decimal] = defaultdict(lambda: ZERO)
    for bet in bets:
        staked[bet.currency] += bet.stake
    return {
        "staked": {currency: str(money(amount)) for currency, amount in sorted(staked.items())},
        "returned": {currency: str(returned.get(currency, ZERO)) for currency in sorted(staked)},
    }


class OpenBet(NamedTuple):
    """An accepted bet as settlement reads it (``open_bets``), or as its placement wrote it."""

    pk: int
    user_id: int | None  # None: a seated patron's chips
    bet_type: str
    stake: Decimal
    stake_account_id: int
    currency: str  # the stake account's


class ClosedBet(NamedTuple):
    bet: OpenBet
    outcome: str
    returned: Decimal


def _open(coup: Coup) -> QuerySet:
    """The coup's bets still open (accepted), which the caller's lock on the coup keeps as they are."""
    return Bet.objects.filter(coup=coup, state=Bet.State.ACCEPTED)


def open_bets(coup: Coup) -> list[OpenBet]:
    """The coup's accepted bets as plain rows, not model instances: a coup may have thousands."""
    rows = _open(coup).order_by("pk")
    columns = ("pk", "user_id", "bet_type", "stake", "stake_account_id", "stake_account__currency")
    return [OpenBet(*row) for row in rows.values_list(*columns)]


def by_currency(closed: list[ClosedBet]) -> dict[str, list[ClosedBet]]:
    """The closed bets by the currency they were staked in: each currency is booked on its own."""
    grouped: dict[str, list[ClosedBet]] = defaultdict(list)
    for each in closed:
        grouped[each.bet.currency].append(each)
    return dict(sorted(grouped.items()))


def bets_by_user(closed: list[ClosedBet]) -> dict[int, list[ClosedBet]]:
    """The online players' bets by user id (a seated patron's chips are nobody's wallet)."""
    by_user: dict[int, list[ClosedBet]] = defaultdict(list)
    for closed_bet in closed:
        if closed_bet.bet.user_id is not None:
            by_user[closed_bet.bet.user_id].append(closed_bet)
    return by_user


def returns_by_account(closed: list[ClosedBet]) -> dict[int, Decimal]:
    """What goes back to each account the stakes came from (a wallet, or a partner's float)."""
    returned: dict[int, Decimal] = defaultdict(lambda: ZERO)
    for each in closed:
        returned[each.bet.stake_account_id] += each.returned
    return {account_id: money(amount) for account_id, amount in returned.items()}


def _bets_pay(*, coup: Coup, result: CoupResult, bets: list[OpenBet]) -> _Paid:
    """Pay the bets by the coup's paytables: a settlement transaction per currency staked in. In order: each
    bet's outcome and return, the stake accounts locked (wallets, then floats: the lock order, after the coup
    the caller locked), any payout a wallet cannot hold withheld, the ledger posted (its system accounts locked
    last), the bets closed, and the players told on commit."""
    payouts = _payouts(coup=coup, result=result, bets=bets)
    accounts = coup_stake_accounts_locked(coup.pk)
    withheld = _payouts_withheld(coup=coup, accounts=accounts, returned_by_account=returns_by_account(payouts.closed))
    transactions, paid = _settlements_post(coup=coup, closed=payouts.closed, accounts=accounts, withheld=withheld)
    bets_close(coup=coup, closed=payouts.closed, transactions=transactions, state=Bet.State.SETTLED)
    _settlement_events_send(coup=coup, result=result, payouts=payouts, accounts=accounts, withheld=withheld)
    from_partners = any(account.kind == Account.Kind.PARTNER_FLOAT for account in accounts.values())
    balances = {account.user_id: account.balance for account in accounts.values() if account.is_wallet}
    return _Paid(
        transactions=transactions,
        paid=paid,
        from_partners=from_partners,
        closed=payouts.closed,
        wallet_balances=balances,
    )


@dataclass(frozen=True)
class _Payouts:
    closed: list[ClosedBet]  # each bet with its outcome and return
    by_kind: dict[tuple[str, Decimal], tuple[str, Decimal]]  # (outcome, returned) by (type, stake)


def _payouts(*, coup: Coup, result: CoupResult, bets: list[OpenBet]) -> _Payouts:
    """Each bet's outcome and return by its paytable, computed once per (type, stake): a coup's bets share a few."""
    paytables = coup_rules(coup=coup).table.paytables()
    by_kind: dict[tuple[str, Decimal], tuple[str, Decimal]] = {}
    closed = []
    for bet in bets:
        kind = (bet.bet_type, bet.stake)
        if kind not in by_kind:
            by_kind[kind] = bet_paid(paytables[bet.bet_type], bet.stake, result)
        closed.append(ClosedBet(bet, *by_kind[kind]))
    return _Payouts(closed=closed, by_kind=by_kind)


def _settlements_post(
    *, coup: Coup, closed: list[ClosedBet], accounts: Mapping[int, StakeAccount], withheld: Mapping[int, Decimal]
) -> tuple[dict[str, LedgerTransaction], dict[str, Decimal]]:
    """A settlement transaction per currency staked in, and what each paid back to players."""
    transactions, paid_by_currency = {}, {}
    for currency, in_currency in by_currency(closed).items():
        transactions[currency], paid_by_currency[currency] = _settlement_post(
            coup=coup, currency=currency, closed=in_currency, accounts=accounts, withheld=withheld
        )
    return transactions, paid_by_currency


def _settlement_post(
    *,
    coup: Coup,
    currency: str,
    closed: list[ClosedBet],
    accounts: Mapping[int, StakeAccount],
    withheld: Mapping[int, Decimal],
) -> tuple[LedgerTransaction, Decimal]:
    """One currency's settlement: a leg per stake account paid (a withheld payout stays with the house), the
    stakes out of bets in play, the rest to the house, and the seated patrons' net to the chip tray."""
    returned = returns_by_account(closed)
    paid_by_account = {account_id: amount for account_id, amount in returned.items() if account_id not in withheld}
    staked, paid = sum(each.bet.stake for each in closed), sum(paid_by_account.values())
    seated = [each for each in closed if each.bet.user_id is None]
    seated_net = sum((each.bet.stake - each.returned for each in seated), ZERO)  # the chip tray's
    transaction = ledger_post(
        kind=LedgerTransaction.Kind.SETTLEMENT,
        currency=currency,
        wallet_legs={accounts[account_id]: amount for account_id, amount in paid_by_account.items()},
        system_legs={
            Account.Kind.BETS_IN_PLAY: -staked,
            Account.Kind.HOUSE: staked - paid - seated_net,
            Account.Kind.CHIP_TRAY: seated_net,
        },
        coup=coup,
    )
    return transaction, money(paid)


def _settlement_events_send(
    *,
    coup: Coup,
    result: CoupResult,
    payouts: _Payouts,
    accounts: Mapping[int, StakeAccount],
    withheld: Mapping[int, Decimal],
) -> None:
    """Each online player's settlement, on commit, built when sent."""
    by_user = bets_by_user(payouts.closed)
    wallets = {account.user_id: account for account in accounts.values() if account.is_wallet}
    bet_views = {  # each (type, stake) once: the players' events share them
        kind: {"bet_type": kind[0], "stake": str(kind[1]), "outcome": outcome, "returned": str(returned)}
        for kind, (outcome, returned) in payouts.by_kind.items()
    }
    user_events_send(
        event_type="settlement",
        data_by_user=EventsBuiltOnDemand(
            by_user, lambda user_id: _settlement_event(coup, result, by_user[user_id], wallets, withheld, bet_views)
        ),
    )


def _settlement_event(
    coup: Coup,
    result: CoupResult,
    mine: list[ClosedBet],
    wallets: Mapping[int, StakeAccount],
    withheld: Mapping[int, Decimal],
    bet_views: Mapping[tuple[str, Decimal], dict],
) -> dict:
    """A player's settlement; the balance is their wallet's (None when a partner's wallet holds it)."""
    wallet = wallets.get(mine[0].bet.user_id)
    returned = money(sum(each.returned for each in mine))
    return {
        "round_id": coup.round_id,
        "winner": result.winner,
        "currency": mine[0].bet.currency,
        "balance": str(wallet.balance) if wallet is not None else None,
        "staked": str(money(sum(each.bet.stake for each in mine))),
        "returned": str(returned),
        "withheld": str(withheld.get(wallet.pk, ZERO) if wallet is not None else ZERO),
        "bets": [bet_views[each.bet.bet_type, each.bet.stake] for each in mine],
    }


def _payouts_withheld(
    *, coup: Coup, accounts: Mapping[int, StakeAccount], returned_by_account: Mapping[int, Decimal]
) -> dict[int, Decimal]:
    """The wallets (by account id) that cannot hold what the coup returns them (past ``MAX_AMOUNT``), and that amount.

    Placements and deposits leave room for every open bet's largest return (``BalanceBound``), so this
    stays empty; should a wallet be full all the same, its payout is withheld rather than fail the
    coup's whole settlement (a ``numeric`` overflow, again on every retry, and nobody at the coup paid).
    Each bet still records what it returned; the amount stays with the house, and an audit row and an
    error in the log tell the cashier what the player is owed (``settlement_check`` reports the wallet).
    """
    withheld = {
        account_id: amount
        for account_id, amount in returned_by_account.items()
        if amount and accounts[account_id].is_wallet and accounts[account_id].balance + amount > MAX_AMOUNT
    }
    for account_id, amount in withheld.items():
        wallet = accounts[account_id]
        user_id = wallet.user_id
        logger.error("coup %s: payout of %s to user %s withheld: the wallet is full", coup.round_id, amount, user_id)
        audit_record(
            action="settlement_payout_withheld",
            actor_label=SETTLEMENT,
            table=coup.table,
            obj=Account(pk=account_id),  # the row is locked as plain values: the audit names it
            after={
                "round_id": coup.round_id,
                "user_id": user_id,
                "withheld": str(amount),
                "balance": str(wallet.balance),
                "max_balance": str(MAX_AMOUNT),
            },
            reason=f"the wallet cannot hold a payout of {amount}: owed to the player, to be paid by the cashier",
        )
    return withheld


def bets_close(
    *, coup: Coup, closed: list[ClosedBet], transactions: Mapping[str, LedgerTransaction], state: str
) -> None:
    """Record each bet's settlement (unique per bet: a second attempt fails) with the transaction of its
    currency, and its final state: the coup's open bets, which the caller's lock on the coup keeps as read."""
    if connection.vendor == "postgresql":
        _bets_close_set_wise(coup=coup, closed=closed, transactions=transactions, state=state)
        return
    rows_insert(
        BetSettlement,
        ("bet", "outcome", "returned", "transaction"),
        [(each.bet.pk, each.outcome, each.returned, transactions[each.bet.currency].pk) for each in closed],
    )
    _open(coup).update(state=state)


def _bets_close_set_wise(
    *, coup: Coup, closed: list[ClosedBet], transactions: Mapping[str, LedgerTransaction], state: str
) -> None:
    """``bets_close`` in one statement on PostgreSQL: the bets' states updated, and their settlements
    inserted from what the update returns, joined to the outcome and return of each (type, stake,
    currency), a few rows, rather than sent a row per bet. Every bet of a kind closes alike; the
    statement must close exactly the bets read, or the transaction fails."""
    kinds: dict[tuple[str, Decimal, str], tuple[str, Decimal]] = {}
    for each in closed:
        paid = (each.outcome, each.returned)
        if kinds.setdefault((each.bet.bet_type, each.bet.stake, each.bet.currency), paid) != paid:
            raise ValueError(f"bets of one kind closed differently on coup {coup.round_id}: {each}")
    if not kinds:
        return
    values = ", ".join(["(%s, %s::numeric, %s, %s, %s::numeric, %s::bigint)"] * len(kinds))
    sql = f"""
        WITH kind (bet_type, stake, currency, outcome, returned, transaction_id) AS (VALUES {values}),
        closed AS (
            UPDATE wagering_bet bet SET state = %s FROM wagering_account account
            WHERE bet.coup_id = %s AND bet.state = %s AND account.id = bet.stake_account_id
            RETURNING bet.id, bet.bet_type, bet.stake, account.currency
        )
        INSERT INTO wagering_betsettlement (bet_id, outcome, returned, transaction_id, created_at)
        SELECT closed.id, kind.outcome, kind.returned, kind.transaction_id, %s
        FROM closed JOIN kind USING (bet_type, stake, currency)
    """  # noqa: S608
    params = [
        value
        for (bet_type, stake, currency), (outcome, returned) in kinds.items()
        for value in (bet_type, stake, currency, outcome, returned, transactions[currency].pk)
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, state, coup.pk, Bet.State.ACCEPTED, timezone.now()])
        if cursor.rowcount != len(closed):
            raise ValueError(f"coup {coup.round_id}: {cursor.rowcount} bets closed, {len(closed)} read")
