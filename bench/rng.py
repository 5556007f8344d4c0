"""Benchmark a table dealt on demand (issue 30): ``python bench/rng.py [--players N] [--deals N]``.

In process, on PostgreSQL (a database of its own, re-created at each run): ``--players`` players, each with a
private shoe, deal in turn (one "Deal" or "Rebet and deal" each) through ``casino.lifecycle.rng.rng_coup_deal``,
the service the Deal endpoint calls: placement, the whole coup, settlement, in one transaction. Printed: the
server time per deal (median, p99) and the CPU a deal of this process and of its PostgreSQL backend. Target
(issue 30): server time per deal p99 ≤ 50 ms. Not yet measured here: the issue's 1,000 players dealing every
2 s over HTTP against the ``Procfile``'s servers (the HTTP layer's share, as ``bench/placement.py`` measures it).
"""

import argparse
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import Verdicts, analyze, baseline_seconds, bench_database_reset, describe, django_setup, percentile

TARGET_P99_SECONDS = 0.050


def backend_cpu_seconds() -> float:
    """This connection's PostgreSQL backend's CPU so far (utime + stime from /proc, in seconds)."""
    import os

    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--deals", type=int, default=2_000)
    options = parser.parse_args()
    django_setup(real=True, name="punto_bench_rng", redis_db=5)
    bench_database_reset()

    from decimal import Decimal

    from django.contrib.auth import get_user_model

    from casino.lifecycle.rng import RngDealAsked, rng_coup_deal, rng_shoe_ready
    from tables.models import Table
    from tables.services import table_create, table_open
    from wagering.checks import ledger_check
    from wagering.wallets import wallet_deposit

    rules = {"dealing_mode": Table.DealingMode.RNG, "side_bets": ["player_pair"]}
    table = table_open(table=table_create(code="rng1", name="Deal Your Own", **rules))
    players = []
    for number in range(options.players):
        user = get_user_model().objects.create_user(username=f"bench{number}")
        wallet_deposit(user=user, amount=Decimal("100000.00"), idempotency_key=uuid.uuid4().hex, reason="bench")
        players.append(user)
    commitments = {user.pk: rng_shoe_ready(table=table, player=user).commitment for user in players}
    analyze()
    baseline = baseline_seconds()

    times = []
    cpu_start, backend_start = time.process_time(), backend_cpu_seconds()
    for deal in range(options.deals):
        user = players[deal % len(players)]
        bets = None if deal >= len(players) and deal % 2 else {"banker": "10.00", "player_pair": "1.00"}
        asked = RngDealAsked(
            user=user, table=table, bets=bets, commitment=commitments[user.pk], request_id=uuid.uuid4().hex
        )
        start = time.perf_counter()
        answer = rng_coup_deal(asked=asked)
        times.append(time.perf_counter() - start)
        commitments[user.pk] = answer["shoe"]["commitment"]
    cpu = (time.process_time() - cpu_start) / options.deals
    backend = (backend_cpu_seconds() - backend_start) / options.deals

    print(f"baseline loop {baseline * 1e3:.2f} ms")
    print(f"{options.deals:,} deals by {options.players:,} players: {describe(times)}")
    print(f"CPU a deal: this process {cpu * 1e3:.2f} ms, its PostgreSQL backend {backend * 1e3:.2f} ms")
    problems = ledger_check().problems
    verdicts = Verdicts()
    verdicts.check("server time per deal, p99", percentile(times, 0.99), TARGET_P99_SECONDS, unit=" s")
    verdicts.check("ledger problems", len(problems), 0)
    return verdicts.exit_code()


if __name__ == "__main__":
    sys.exit(main())
