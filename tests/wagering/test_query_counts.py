"""Settlement and void refunds run the same queries for one player as for many (no query per bet or per
player), and still pay, record and tell every player what is theirs."""

from decimal import Decimal

import pytest

from casino.lifecycle.settlement import coup_settle
from tests.factories import CoupFactory, coup_deal_and_resolve
from tests.wagering.test_settlement import BANKER_SIX, bettor
from wagering.cancellation import coup_bets_refund
from wagering.checks import ledger_check
from wagering.models import Account, Bet, BetSettlement, LedgerEntry, LedgerTransaction
from wagering.selectors import wallet_balance

D = Decimal
SETTLE_QUERIES = 19  # coup, cards, bets, wallets, the ledger (5), settlements, bet states, coup, audit, webhooks (5)
REFUND_QUERIES = 12  # coup, bets, wallets, the ledger (5), settlements, bet states, audit, savepoint
PLAYER_BETS = {"player": "10", "tie": "1", "player_pair": "1"}  # all lost on BANKER_SIX: nothing back
BANKER_BETS = {"banker": "10", "tie": "1"}  # the banker bet back at 0.95:1, 19.50; the tie lost


@pytest.fixture
def house(db):
    """Opened by the first settlement ever: here beforehand, so every size finds it."""
    return Account.objects.create(kind=Account.Kind.HOUSE)


def coup_with_bettors(players: int):
    coup = CoupFactory()
    users = [bettor(coup, BANKER_BETS if index % 2 else PLAYER_BETS) for index in range(players)]
    return coup, users


@pytest.mark.parametrize("players", [1, 30])
def test_settlement_queries_do_not_grow_with_bets_or_players(
    house, players, sent_events, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    coup, users = coup_with_bettors(players)
    coup_deal_and_resolve(coup, BANKER_SIX)
    sent_events.clear()
    with django_capture_on_commit_callbacks(execute=True), django_assert_max_num_queries(SETTLE_QUERIES):
        coup_settle(coup_id=coup.pk)
    balances = {user.pk: wallet_balance(user=user) for user in users}
    expected = {user.pk: D("988.00") if index % 2 == 0 else D("1008.50") for index, user in enumerate(users)}
    assert balances == expected  # 1000 - 12; 1000 - 11 + 19.50
    assert set(Bet.objects.filter(coup=coup).values_list("state", flat=True)) == {Bet.State.SETTLED}
    assert BetSettlement.objects.filter(bet__coup=coup).count() == Bet.objects.filter(coup=coup).count()
    settlement = LedgerTransaction.objects.get(coup=coup, kind=LedgerTransaction.Kind.SETTLEMENT)
    legs = {entry.account.user_id: entry for entry in settlement.entries.filter(account__kind=Account.Kind.PLAYER)}
    assert set(legs) == {user.pk for index, user in enumerate(users) if index % 2}  # losers get no leg
    assert all((leg.amount, leg.balance_after) == (D("19.50"), D("1008.50")) for leg in legs.values())
    events = [data for kind, event, data in sent_events if (kind, event) == ("user", "settlement")]
    assert sorted(data["balance"] for data in events) == sorted(str(balance) for balance in balances.values())
    assert all(len(data["bets"]) in (2, 3) and data["round_id"] == coup.round_id for data in events)
    assert ledger_check().ok


@pytest.mark.parametrize("players", [1, 30])
def test_void_refund_queries_do_not_grow_with_bets_or_players(
    db, players, sent_events, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    coup, users = coup_with_bettors(players)
    sent_events.clear()
    with django_capture_on_commit_callbacks(execute=True), django_assert_max_num_queries(REFUND_QUERIES):
        coup_bets_refund(coup=coup)
    assert {wallet_balance(user=user) for user in users} == {D("1000.00")}
    assert set(BetSettlement.objects.filter(bet__coup=coup).values_list("outcome", flat=True)) == {"refund"}
    refund = LedgerTransaction.objects.get(coup=coup, kind=LedgerTransaction.Kind.REFUND)
    assert LedgerEntry.objects.filter(transaction=refund).count() == players + 1  # a leg per player, bets in play
    events = [data for kind, event, data in sent_events if (kind, event) == ("user", "bets_refunded")]
    assert sorted(data["refunded"] for data in events) == sorted(
        "12.00" if i % 2 == 0 else "11.00" for i in range(players)
    )
    assert {data["balance"] for data in events} == {"1000.00"}
    assert ledger_check().ok
