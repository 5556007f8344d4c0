"""Two loop processes on one table: one deals, the other stands by; the dealing one killed (SIGKILL) mid-coup,
the other takes the table within seconds, finishes the coup and deals on. No coup or card twice, the
table's cadence one loop's, every bet settled once."""

from __future__ import annotations

import time
from datetime import timedelta
from decimal import Decimal
from itertools import pairwise

import pytest
from django.utils import timezone

from tables.models import Coup, DealtCard
from tables.services import table_close
from tests.faults.conftest import DEPOSIT
from tests.faults.loop_process import CARD_INTERVAL, PAUSED, RESULT_PAUSE
from tests.processes import wait_until
from wagering.checks import ledger_check, settlement_check
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]

DEALING, STANDING_BY = "dealing (this loop holds its lock)", "standing by (another loop deals it)"
TAKEOVER_SECONDS = 5.0
STAKES = [{"player": "10.00", "tie": "2.00"}, {"banker": "25.00"}, {"player": "7.50"}]
NO_MORE_BETS_WAIT = 1.0  # the loop's wait after closing betting (casino.lifecycle.loop)


def betting_coup(table, *, after: int) -> Coup | None:
    return Coup.objects.filter(table=table, state=Coup.State.BETTING, number__gt=after).first()


def table_lines(process, table) -> list[str]:
    """What a loop process logged of the table: its steps and whether it deals or stands by."""
    prefix = f"table {table.pk}: "
    return [line.split(prefix, 1)[1].strip() for line in process.output if prefix in line]


def cadence_problems(coups: list[Coup], *, betting_seconds: int) -> list[str]:
    """Where the coups went faster than one loop deals: a shorter betting window, cards closer than the
    card interval, the next coup open before the result's pause was over."""
    problems, margin = [], timedelta(milliseconds=5)
    for coup in coups:
        if coup.closed_at < coup.betting_closes_at:
            problems.append(f"{coup.round_id}: betting closed before its {betting_seconds} s")
        dealt = [card.dealt_at for card in coup.cards.all()]
        gaps = [(coup.closed_at, dealt[0], NO_MORE_BETS_WAIT)] + [(a, b, CARD_INTERVAL) for a, b in pairwise(dealt)]
        if any(b - a < timedelta(seconds=least) - margin for a, b, least in gaps):
            times = [t.time().isoformat() for t in [coup.closed_at, *dealt]]
            problems.append(f"{coup.round_id}: closed at {times[0]}, cards at {times[1:]}")
    for before, after in pairwise(coups):
        if after.opened_at - before.resolved_at < timedelta(seconds=RESULT_PAUSE) - margin:
            problems.append(f"{after.round_id}: opened {after.opened_at - before.resolved_at} after the result")
    return problems


def test_one_loop_deals_the_other_takes_over_when_it_is_killed(processes, settlement_worker, fault_table, players):
    first = processes.loop(fault_table.code, "--pause", "card:7")  # killed inside the second coup's deal
    first.wait_for_line(DEALING)
    second = processes.loop(fault_table.code)
    coups = []
    for _ in range(2):
        wait_until(lambda: betting_coup(fault_table, after=len(coups)), what="a coup open for betting")
        coups.append(betting_coup(fault_table, after=len(coups)))
        for player, stakes in zip(players, STAKES, strict=True):
            bet_batch_place(user=player, coup=coups[-1], bets=stakes)
    second.wait_for_line(STANDING_BY)

    first.wait_for_line(PAUSED)
    first.kill()
    killed_at, killed_clock = timezone.now(), time.monotonic()
    second.wait_for_line(DEALING, timeout=TAKEOVER_SECONDS)
    took = time.monotonic() - killed_clock
    wait_until(
        lambda: Coup.objects.filter(table=fault_table, number=3, resolved_at__isnull=False).exists(),
        what="the second loop finishing the killed coup and dealing the next",
    )
    table_close(table=fault_table, reason="no further coup")
    wait_until(lambda: not Coup.objects.exclude(state__in=[Coup.State.SETTLED, Coup.State.VOID]).exists(), what="done")
    assert second.stop() == 0, second.log()

    # One dealt at a time: the second stood by until the first was killed, the first never stood by.
    assert table_lines(second, fault_table)[:2] == [STANDING_BY, DEALING], second.log()
    assert STANDING_BY not in table_lines(first, fault_table), first.log()
    first_card_after = DealtCard.objects.filter(dealt_at__gt=killed_at).order_by("dealt_at").first()
    assert took < TAKEOVER_SECONDS and first_card_after.dealt_at - killed_at < timedelta(seconds=TAKEOVER_SECONDS)

    dealt = list(Coup.objects.filter(table=fault_table).order_by("number").prefetch_related("cards"))
    assert [coup.number for coup in dealt] == list(range(1, len(dealt) + 1)) and len(dealt) >= 3
    assert all(coup.state == Coup.State.SETTLED and 4 <= len(coup.cards.all()) <= 6 for coup in dealt)
    shoe_positions = list(DealtCard.objects.order_by("shoe_position").values_list("shoe_position", flat=True))
    assert shoe_positions == list(range(shoe_positions[0], shoe_positions[0] + len(shoe_positions)))  # none twice
    assert cadence_problems(dealt, betting_seconds=fault_table.betting_seconds) == []

    assert settlement_check().problems == []
    assert ledger_check().ok
    for player, stakes in zip(players, STAKES, strict=True):
        bets = list(player.bets.filter(coup__in=coups).select_related("settlement"))
        assert sorted((bet.coup_id, bet.bet_type, str(bet.stake)) for bet in bets) == sorted(
            (coup.pk, bet_type, stake) for coup in coups for bet_type, stake in stakes.items()
        )
        staked = 2 * sum(Decimal(stake) for stake in stakes.values())
        assert wallet_balance(user=player) == DEPOSIT - staked + sum(bet.settlement.returned for bet in bets)
