"""The table loop killed (SIGKILL) at each step of a coup, then started again: the coup is played to
the end and settled once, no card is dealt twice, no bet is lost or paid twice."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tables.models import Coup
from tables.services import table_close
from tests.faults.conftest import DEPOSIT
from tests.faults.loop_process import PAUSED
from tests.processes import wait_until
from wagering.checks import ledger_check, settlement_check
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]

STAKES = [{"player": "10.00", "tie": "2.00"}, {"banker": "25.00"}, {"player": "7.50", "tie": "1.00"}]


def betting_coup(table) -> Coup | None:
    return Coup.objects.filter(table=table, state=Coup.State.BETTING).first()


@pytest.mark.parametrize(
    ("pause", "after_commit", "then"),
    [
        ("betting_open", True, lambda coup: coup.state == Coup.State.BETTING),
        ("no_more_bets", False, lambda coup: coup.state == Coup.State.BETTING),
        ("no_more_bets", True, lambda coup: coup.state == Coup.State.NO_MORE_BETS),
        ("card:3", False, lambda coup: coup.cards.count() == 2),
        ("card:3", True, lambda coup: coup.cards.count() == 3),
        ("result", False, lambda coup: coup.state == Coup.State.DEALING),
        ("result", True, lambda coup: coup.state == Coup.State.RESOLVED),  # its settlement task never sent
    ],
    ids=[
        "during-betting",
        "closing-betting",
        "after-no-more-bets",
        "dealing-third-card",
        "between-cards",
        "resolving",
        "after-resolution",
    ],
)
def test_the_loop_killed_and_restarted_finishes_the_coup_once(
    processes, settlement_worker, fault_table, players, pause, after_commit, then
):
    first = processes.loop(fault_table.code, "--pause", pause, *(["--after-commit"] if after_commit else []))
    wait_until(lambda: betting_coup(fault_table), what="a coup open for betting")
    coup = betting_coup(fault_table)
    for player, stakes in zip(players, STAKES, strict=True):
        bet_batch_place(user=player, coup=coup, bets=stakes)
    first.wait_for_line(PAUSED)
    first.kill()
    coup.refresh_from_db()
    assert then(coup), f"killed at {pause}: coup {coup.state} with {coup.cards.count()} cards"

    second = processes.loop(fault_table.code)
    wait_until(lambda: Coup.objects.get(pk=coup.pk).state not in Coup.LIVE_STATES, what="the coup played out")
    table_close(table=fault_table, reason="no further coup")
    wait_until(lambda: not Coup.objects.exclude(state__in=[Coup.State.SETTLED, Coup.State.VOID]).exists(), what="done")
    assert second.stop() == 0, second.log()

    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED
    assert 4 <= coup.cards.count() <= 6
    check = settlement_check()
    assert check.problems == []
    assert ledger_check().ok
    for player, stakes in zip(players, STAKES, strict=True):
        bets = list(coup.bets.filter(user=player).select_related("settlement"))
        assert {bet.bet_type: str(bet.stake) for bet in bets} == stakes
        returned = sum(bet.settlement.returned for bet in bets)
        staked = sum(Decimal(stake) for stake in stakes.values())
        assert wallet_balance(user=player) == DEPOSIT - staked + returned
