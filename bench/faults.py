"""Fault injection: ``.venv/bin/python bench/faults.py [--seconds 60] [--players 40]`` (PostgreSQL and Redis,
its own database).

A table's loop (``tests.faults.loop_process``: the table loop with fast timings) and a Celery worker of
the settlement queue run as processes while simulated players (threads calling the wagering services)
bet on every coup. For ``--seconds``, one of the two processes is killed (SIGKILL) at random every
0.5-3 s and started again a moment later. Then the table is closed, everything is let finish, and the
database is checked: every coup settled or void, every card dealt once and in order, every bet settled
or refunded once, every wallet = deposits - stakes + returns, every ledger transaction balanced. Prints
the counts; exits 1 on any problem.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
import uuid
from collections import Counter
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import bench_database_reset, django_setup

SETTLE_SECONDS = 180  # to finish the last coups once the faults stop
BETS = [{"player": "10.00"}, {"banker": "25.00"}, {"tie": "5.00"}, {"player": "5.00", "tie": "1.00"}]


class Outcomes(Counter):
    """Player requests by outcome, counted from several threads."""

    lock = threading.Lock()

    def count(self, outcome: str) -> None:
        with self.lock:
            self[outcome] += 1


def players_bet(players: list, stop: threading.Event, outcomes: Outcomes) -> None:
    """A thread of simulated players: each open coup, each of them may bet (and now and then undo)."""
    from django.db import DatabaseError, connection
    from django.utils import timezone

    from tables.models import Coup
    from wagering.cancellation import bet_batch_undo
    from wagering.errors import WageringError
    from wagering.placement import bet_batch_place

    while not stop.is_set():
        coup = Coup.objects.filter(state=Coup.State.BETTING, betting_closes_at__gt=timezone.now()).first()
        for player in random.sample(players, len(players)) if coup is not None else []:
            try:
                bet_batch_place(user=player, coup=coup, bets=random.choice(BETS))
                outcomes.count("placed")
                if random.random() < 0.1:
                    bet_batch_undo(user=player, coup=coup)
                    outcomes.count("undone")
            except WageringError as error:
                outcomes.count(f"refused ({error.code})")
            except DatabaseError:
                outcomes.count("database error")
        stop.wait(0.2)
    connection.close()


def inject_faults(processes: dict, starters: dict, seconds: float) -> Counter:
    kills: Counter = Counter()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(random.uniform(0.5, 3.0))
        name = random.choice(list(processes))
        processes[name].kill()
        kills[name] += 1
        time.sleep(random.uniform(0.0, 1.0))
        processes[name] = starters[name]()
    return kills


def finished() -> bool:
    from tables.models import Coup

    return not Coup.objects.exclude(state__in=[Coup.State.SETTLED, Coup.State.VOID]).exists()


def main() -> int:
    from tables.services import table_close, table_create, table_open
    from wagering.wallets import wallet_deposit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()
    django_setup(real=True, name="punto_bench_faults", redis_db=7)
    bench_database_reset()
    from django.contrib.auth import get_user_model

    from casino import celery_app
    from tests.processes import celery_worker, python, subprocess_env
    from wagering.checks import ledger_check, settlement_check
    from wagering.models import LedgerTransaction

    celery_app.control.purge()
    boss = get_user_model().objects.create_user(username="boss")
    table = table_create(code="faults", name="Faults", actor=boss, betting_seconds=2)
    table_open(table=table, actor=boss)
    players = [get_user_model().objects.create_user(username=f"punter{n}") for n in range(args.players)]
    for player in players:
        wallet_deposit(user=player, amount=Decimal(10_000), idempotency_key=uuid.uuid4().hex)
    env = subprocess_env()
    starters = {
        "loop": lambda: python("-m", "tests.faults.loop_process", table.code, env=env),
        "worker": lambda: celery_worker(queues="settlement", env=env),
    }
    processes = {name: start() for name, start in starters.items()}
    stop, outcomes = threading.Event(), Outcomes()
    threads = [threading.Thread(target=players_bet, args=(players, stop, outcomes)) for _ in range(args.threads)]
    for thread in threads:
        thread.start()
    started = time.monotonic()
    kills = inject_faults(processes, starters, args.seconds)
    stop.set()
    for thread in threads:
        thread.join()
    table_close(table=table, actor=boss, reason="end of the fault run")
    deadline = time.monotonic() + SETTLE_SECONDS
    while not finished() and time.monotonic() < deadline:
        time.sleep(0.5)
    print(f"faults for {args.seconds:.0f} s, all finished after {time.monotonic() - started:.1f} s")
    exit_codes = {name: process.stop() for name, process in processes.items()}

    check, ledger = settlement_check(), ledger_check()
    problems = check.problems + ledger.problems
    problems += [f"{name} exited with {code}" for name, code in exit_codes.items() if code != 0]
    print(f"kills: table loop {kills['loop']}, celery worker {kills['worker']}")
    print(f"coups: {dict(sorted(check.coups.items()))}")
    print(f"bets: {dict(sorted(check.bets.items()))}; player requests: {dict(sorted(outcomes.items()))}")
    kinds = Counter(LedgerTransaction.objects.values_list("kind", flat=True))
    print(f"ledger transactions: {ledger.transactions} {dict(sorted(kinds.items()))}, entries {ledger.entries}")
    print(f"problems: {len(problems)}")
    for problem in problems[:50]:
        print(f"  {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
