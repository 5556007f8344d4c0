"""Undo and Remove all: the last batch or every bet cancelled and refunded, while betting is open."""

from decimal import Decimal

import pytest

from tables.models import AuditLog, Coup
from tests.wagering.conftest import funded
from wagering.cancellation import bet_batch_undo, bet_remove_all
from wagering.checks import ledger_check
from wagering.errors import BetRejected
from wagering.models import Bet, LedgerTransaction
from wagering.placement import bet_batch_place
from wagering.selectors import coup_bet_totals, wallet_balance

D = Decimal


def test_undo_cancels_the_last_batch_and_refunds_it(player, coup):
    first = bet_batch_place(user=player, coup=coup, bets={"player": "10"}).batch
    second = bet_batch_place(user=player, coup=coup, bets={"player": "20", "tie": "5"}).batch
    assert bet_batch_undo(user=player, coup=coup).pk == second.pk
    assert wallet_balance(user=player) == D("9990.00")
    assert coup_bet_totals(coup=coup, user=player) == {"player": D("10.00")}
    assert set(second.bets.values_list("state", flat=True)) == {Bet.State.CANCELLED}
    second.refresh_from_db()
    assert second.cancellation.kind == LedgerTransaction.Kind.BET_CANCEL and second.cancelled_at
    assert bet_batch_undo(user=player, coup=coup).pk == first.pk
    with pytest.raises(BetRejected) as error:
        bet_batch_undo(user=player, coup=coup)
    assert error.value.code == "no_bets"
    assert wallet_balance(user=player) == D("10000.00")
    assert AuditLog.objects.filter(action="bet_batch_undone").count() == 2
    assert ledger_check().ok


def test_remove_cancels_all_the_players_bets_and_refunds_them(player, coup):
    bet_batch_place(user=player, coup=coup, bets={"player": "10"})
    bet_batch_place(user=player, coup=coup, bets={"player": "20", "tie": "5"})
    other = funded()
    bet_batch_place(user=other, coup=coup, bets={"banker": "30"})
    assert len(bet_remove_all(user=player, coup=coup)) == 2
    assert wallet_balance(user=player) == D("10000.00")
    assert coup_bet_totals(coup=coup) == {"banker": D("30.00")}
    with pytest.raises(BetRejected) as error:
        bet_remove_all(user=player, coup=coup)
    assert error.value.code == "no_bets"


@pytest.mark.parametrize("cancel", [bet_batch_undo, bet_remove_all])
def test_no_undo_or_remove_after_no_more_bets(player, coup, cancel):
    bet_batch_place(user=player, coup=coup, bets={"player": "10"})
    Coup.objects.filter(pk=coup.pk).update(state=Coup.State.NO_MORE_BETS)
    with pytest.raises(BetRejected) as error:
        cancel(user=player, coup=coup)
    assert error.value.code == "betting_closed"
    assert wallet_balance(user=player) == D("9990.00")
