"""Many at once on PostgreSQL: threads, each with its own connection, released together.

Neither a wallet nor the table's limits can be pushed past their bounds, and nothing is paid
twice, however the requests interleave.
"""

import threading
from decimal import Decimal

import pytest
from django.db import connection

from casino import lifecycle
from casino.lifecycle.settlement import coup_settle
from tests.factories import CoupFactory, TableFactory, UserFactory, coup_deal_and_resolve
from tests.wagering.conftest import fund, postgres_only
from wagering.checks import ledger_check
from wagering.errors import BetRejected, WalletRejected
from wagering.models import Bet, BetSettlement, LedgerTransaction
from wagering.placement import bet_batch_place
from wagering.selectors import coup_bet_totals, wallet_balance
from wagering.wallets import wallet_deposit, wallet_withdraw

D = Decimal
pytestmark = [postgres_only, pytest.mark.django_db(transaction=True)]


def all_at_once(count, work):
    """Run ``work(index)`` in ``count`` threads started together; each result or exception."""
    barrier = threading.Barrier(count)
    results = [None] * count

    def run(index):
        try:
            barrier.wait()
            results[index] = work(index)
        except Exception as error:
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def codes(results) -> list[str]:
    unexpected = [r for r in results if isinstance(r, Exception) and not isinstance(r, BetRejected | WalletRejected)]
    assert not unexpected, unexpected
    return sorted("ok" if not isinstance(r, Exception) else r.code for r in results)


def test_a_wallet_cannot_be_overdrawn_by_bets_at_many_tables_and_withdrawals_at_once():
    user = UserFactory()
    fund(user, "100.00")
    coups = [CoupFactory() for _ in range(6)]

    def spend(index):
        if index % 2:
            return wallet_withdraw(user=user, amount="30", idempotency_key=f"wd-{index}")
        return bet_batch_place(user=user, coup=coups[index], bets={"player": "30"})

    results = codes(all_at_once(6, spend))
    assert results == ["insufficient_funds"] * 3 + ["ok"] * 3
    assert wallet_balance(user=user) == D("10.00")
    assert ledger_check().ok


def test_the_same_player_cannot_overdraw_on_one_coup():
    user = UserFactory()
    fund(user, "100.00")
    coup = CoupFactory()
    results = codes(all_at_once(8, lambda index: bet_batch_place(user=user, coup=coup, bets={"tie": "40"})))
    assert results.count("ok") == 2
    assert wallet_balance(user=user) == D("20.00")


def test_many_players_cannot_push_the_table_past_its_differential():
    coup = CoupFactory(table=TableFactory(max_differential=D("1000.00")))
    players = [UserFactory() for _ in range(10)]
    for user in players:
        fund(user, "1000.00")
    results = codes(
        all_at_once(10, lambda index: bet_batch_place(user=players[index], coup=coup, bets={"banker": "300"}))
    )
    assert results == ["max_differential"] * 7 + ["ok"] * 3
    assert coup_bet_totals(coup=coup) == {"banker": D("900.00")}


def test_many_players_cannot_push_the_tie_past_its_table_maximum():
    coup = CoupFactory()  # tie: 100 each, 500 for the table
    players = [UserFactory() for _ in range(8)]
    for user in players:
        fund(user, "1000.00")
    results = codes(all_at_once(8, lambda index: bet_batch_place(user=players[index], coup=coup, bets={"tie": "100"})))
    assert results == ["ok"] * 5 + ["table_maximum"] * 3
    assert coup_bet_totals(coup=coup) == {"tie": D("500.00")}


def test_one_player_from_two_devices_cannot_bet_player_and_banker():
    user = UserFactory()
    fund(user, "1000.00")
    coup = CoupFactory()
    hands = ["player", "banker"] * 3
    results = codes(all_at_once(6, lambda index: bet_batch_place(user=user, coup=coup, bets={hands[index]: "10"})))
    assert results == ["ok"] * 3 + ["player_and_banker"] * 3
    assert len(coup_bet_totals(coup=coup, user=user)) == 1


def test_settling_at_once_from_several_workers_pays_once():
    coup = CoupFactory()
    players = [UserFactory() for _ in range(5)]
    for user in players:
        fund(user, "100.00")
        bet_batch_place(user=user, coup=coup, bets={"player": "100"})
    coup_deal_and_resolve(coup, "9S 2H KD 3C")
    results = all_at_once(4, lambda index: coup_settle(coup_id=coup.pk))
    assert not [r for r in results if isinstance(r, Exception)]
    assert [wallet_balance(user=user) for user in players] == [D("200.00")] * 5
    assert BetSettlement.objects.count() == 5
    assert LedgerTransaction.objects.filter(kind="settlement").count() == 1


def test_a_void_racing_bets_refunds_every_bet_that_got_in_before_it():
    coup = CoupFactory()
    players = [UserFactory() for _ in range(6)]
    for user in players:
        fund(user, "100.00")

    def bet_or_void(index):
        if index == 0:
            return lifecycle.coup_void(coup=coup, actor=None, reason="shoe dropped")
        return bet_batch_place(user=players[index], coup=coup, bets={"player": "50"})

    results = all_at_once(6, bet_or_void)
    assert set(codes(results[1:])) <= {"ok", "betting_closed"}
    assert set(Bet.objects.values_list("state", flat=True)) <= {Bet.State.REFUNDED}
    assert [wallet_balance(user=user) for user in players] == [D("100.00")] * 6
    assert ledger_check().ok


def test_the_same_idempotency_key_at_once_moves_money_once():
    user = UserFactory()
    results = all_at_once(8, lambda index: wallet_deposit(user=user, amount="25", idempotency_key="same"))
    assert len({entry.pk for entry in results}) == 1
    assert wallet_balance(user=user) == D("25.00")
