"""Settlement, the lifecycle's step after resolve, run by the Celery task (``casino.lifecycle.tasks``): the coup's
bets paid (``wagering``), the seamless wallets' credits and the partners' notices (``partners``, sent on
commit), the coup marked settled (``tables``), in one transaction under the coup's row lock."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction
from django.utils import timezone

from baccarat.coup import CoupResult
from kernel.metrics import settlement_lag_observe
from partners.seamless import round_credits_record
from partners.webhooks import SETTLEMENT, webhook_events_enqueue
from tables.coups import coup_mark_settled
from tables.locks import coup_only_locked
from tables.models import Coup
from wagering.models import LedgerTransaction
from wagering.settlement import CoupBetsSettled, OpenBet, coup_bets_settle


def coup_settle(*, coup_id: int) -> list[LedgerTransaction]:
    """Pay every bet of a resolved coup, mark it settled and notify the partners. Run twice, pays once.
    The settlement's transactions, one per currency staked in (none: nothing to pay, or paid already)."""
    with _cycle_collector_paused(), transaction.atomic():
        coup = coup_only_locked(coup_id)
        if coup.state in (Coup.State.SETTLED, Coup.State.VOID):
            return []
        settled = _settled(coup=coup, result=None, bets=None)
    if coup.resolved_at is not None:
        settlement_lag_observe((timezone.now() - coup.resolved_at).total_seconds())
    return settled.transactions


def private_coup_settle(*, coup: Coup, result: CoupResult, bets: list[OpenBet]) -> CoupBetsSettled:
    """``coup_settle`` for a private coup (a table dealt on demand) in the caller's transaction, the one that
    opened it, placed its ``bets`` and dealt its ``result``: the coup is locked (nobody else sees it before the
    commit) and nothing of it is read again. Each bet's outcome and return, and the wallets' balances after."""
    return _settled(coup=coup, result=result, bets=bets)


def _settled(*, coup: Coup, result: CoupResult | None, bets: list[OpenBet] | None) -> CoupBetsSettled:
    settled = coup_bets_settle(coup=coup, result=result, bets=bets)
    if settled.from_partners:
        round_credits_record(coup=coup)
    coup_mark_settled(coup=coup)
    webhook_events_enqueue(coup=coup, kind=SETTLEMENT)
    return settled


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """Python's cycle collector paused while a coup settles: a coup of 100,000 bets makes some 400,000
    short-lived objects (rows, payouts, legs), none in a cycle, and each collection they set off walks
    every object of the process: 0.7 s of a 4 s settlement. It runs again as usual afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
