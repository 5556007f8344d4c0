"""The table loop: betting window -> no more bets -> deal -> resolve -> settle -> next coup.

``table_step`` does the one next thing a table needs, in its own transaction, reading
everything from the database; so a loop stopped anywhere and started again carries on
from the coup it left, and nothing is dealt twice (cards are unique by shoe position).
One loop process deals a table at a time (``table_locks``): others stand by and take it when it dies.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum

from django.db import close_old_connections, transaction
from django.utils import timezone

from casino import lifecycle
from casino.lifecycle.table_locks import STANDBY_POLL, TableLocks
from casino.lifecycle.tasks import coup_settle_task
from tables.coups import coup_open
from tables.dealing import coup_deal_card
from tables.errors import TableError
from tables.models import Coup, Shoe, Table
from tables.selectors import coup_deal_state, shoe_is_finished, table_live_coup, table_shoe_in_play
from tables.shoes import shoe_prepare, shoe_start

logger = logging.getLogger(__name__)

CARD_INTERVAL = 0.8  # seconds between cards on an automatic table, for players to follow
RESULT_PAUSE = 4.5  # seconds the result stays up before the next coup opens: the result moment (the win counted
# up, the chips paid out) is over before the next window (issue 32)
SETTLEMENT_RETRY_AFTER = timedelta(seconds=30)


class StepKind(Enum):
    """What a step of the loop did: the loop (and its tests) read this, never the text."""

    WAITING = "waiting"  # for the dealer, or for the betting time to run out
    TABLE_CLOSED = "table_closed"
    SHOE_FINISHED = "shoe_finished"
    SHOE_STARTED = "shoe_started"
    COUP_OPENED = "coup_opened"
    BETTING_CLOSED = "betting_closed"
    CARD_DEALT = "card_dealt"
    RESOLVED = "resolved"
    HELD = "held"
    REFUSED = "refused"  # a service refused the step (TableError): logged, tried again
    FAILED = "failed"  # anything else: logged with its traceback, tried again


@dataclass(frozen=True)
class Step:
    kind: StepKind
    did: str  # for the log
    wait: float  # seconds until the next step is due


def table_step(*, table_id: int) -> Step:
    """Do the next thing an automatic table needs."""
    table = Table.objects.get(pk=table_id)
    coup = table_live_coup(table=table)
    if coup is not None:
        return _advance_coup(coup)
    if table.dealing_mode != Table.DealingMode.AUTOMATIC:
        return Step(StepKind.WAITING, "waiting for the dealer", 1.0)
    _retry_stuck_settlements(table)
    if not table.is_open:
        return Step(StepKind.TABLE_CLOSED, "table closed", 2.0)
    shoe = table_shoe_in_play(table=table)
    if shoe is not None and shoe_is_finished(shoe=shoe):
        lifecycle.shoe_end(shoe=shoe)
        return Step(StepKind.SHOE_FINISHED, f"shoe {shoe.number} finished", 0.0)
    if shoe is None:
        prepared = table.shoes.filter(state=Shoe.State.PREPARED).order_by("-number").first()
        shoe_start(shoe=prepared or shoe_prepare(table=table))
        return Step(StepKind.SHOE_STARTED, "shoe started", 0.0)
    coup = coup_open(table=table)
    return Step(StepKind.COUP_OPENED, f"coup {coup.round_id} open", table.betting_seconds if not coup.no_bet else 0.0)


def _advance_coup(coup: Coup) -> Step:
    if coup.state == Coup.State.HELD:  # the pit decides; the loop carries on once it has
        return Step(StepKind.HELD, f"{coup.round_id}: held for the pit", 1.0)
    now = timezone.now()
    if coup.state == Coup.State.BETTING:
        if coup.betting_closes_at and coup.betting_closes_at > now:
            return Step(StepKind.WAITING, "betting", (coup.betting_closes_at - now).total_seconds())
        lifecycle.coup_close_betting(coup=coup)
        return Step(StepKind.BETTING_CLOSED, f"{coup.round_id}: no more bets", 1.0)
    if coup.table.dealing_mode != Table.DealingMode.AUTOMATIC:
        return Step(StepKind.WAITING, "waiting for the dealer's cards", 1.0)
    if coup.state == Coup.State.NO_MORE_BETS or not coup_deal_state(coup=coup).complete:
        dealt = coup_deal_card(coup=coup)
        return Step(StepKind.CARD_DEALT, f"{coup.round_id}: card {dealt.position + 1}", CARD_INTERVAL)
    lifecycle.coup_resolve(coup=coup)
    return Step(StepKind.RESOLVED, f"{coup.round_id}: resolved", RESULT_PAUSE)


def _retry_stuck_settlements(table: Table) -> None:
    """A settlement task lost with its worker, or never sent (broker down), is sent again (settlement is
    idempotent). Robust: with the broker down the loop logs the failure and deals on."""
    stale = timezone.now() - SETTLEMENT_RETRY_AFTER
    for coup_id in table.coups.filter(state=Coup.State.RESOLVED, resolved_at__lt=stale).values_list("id", flat=True):
        transaction.on_commit(lambda coup_id=coup_id: coup_settle_task.delay(coup_id), robust=True)


def run_table(*, table_id: int, stop: threading.Event, locks: TableLocks, max_coups: int | None = None) -> None:
    """Step a table until ``stop`` is set (or ``max_coups`` coups have been resolved), while this process holds
    its lock; stand by while another loop deals it."""
    resolved = 0
    while not stop.is_set():
        if not locks.hold(table_id=table_id):
            stop.wait(STANDBY_POLL)
            continue
        close_old_connections()
        try:
            step = table_step(table_id=table_id)
        except TableError as error:
            logger.warning("table %s: %s", table_id, error)
            step = Step(StepKind.REFUSED, str(error), 1.0)
        except Exception:
            logger.exception("table %s: step failed; retrying", table_id)
            step = Step(StepKind.FAILED, "error", 2.0)
        logger.debug("table %s: %s", table_id, step.did)
        if step.kind is StepKind.RESOLVED:
            resolved += 1
            if max_coups is not None and resolved >= max_coups:
                return
        stop.wait(step.wait)


def start_table_threads(*, table_ids: list[int], stop: threading.Event, locks: TableLocks) -> list[threading.Thread]:
    threads = [
        threading.Thread(
            target=run_table, kwargs={"table_id": tid, "stop": stop, "locks": locks}, name=f"table-{tid}", daemon=True
        )
        for tid in table_ids
    ]
    for thread in threads:
        thread.start()
    return threads
