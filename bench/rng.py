"""Benchmark a table dealt on demand over HTTP (issue 30): ``flock /tmp/punto-bench.lock .venv/bin/python
bench/rng.py [--players 1000] [--interval 2] [--seconds 30] [--pin none|split]``.

On PostgreSQL (a database of its own, re-created at each run, ``BENCH_DATABASE_URL`` to name another) it opens a
table dealt on demand and funds ``--players`` signed-in players (session cookie and CSRF token), each with a
private shoe whose commitment their page would show, and runs ``ANALYZE``. Then it starts the web process exactly
as the ``Procfile`` does and a load generator (``bench/rng_clients.py``, a process of its own) in which every
player deals through ``POST /tables/<code>/deal/`` every ``--interval`` seconds, jittered ±20%, open loop (a
player's next deal goes at its time, or as soon as a late answer comes), alternately "Deal" (Banker and Player
Pair) and "Rebet and deal", for ``--seconds``, after a warm-up of one interval (the web processes' first requests,
not measured).

Printed: the latency of a deal as the client times it (request written to answer read, over loopback: the
server's time plus two loopback hops; ``lag``: how late after its scheduled time the client could send, the
queue a player saw) p50/p99; the CPU per deal of the web processes, the bench database's own PostgreSQL
backends, Redis and the load generator (``load_harness.CpuMeter``), and the rate that CPU allows on this
machine's cores. Target (issue 30): at 1,000 players each every 2 s (500 deals/s), p99 ≤ 50 ms; exits 1 on a
miss, on any error and on a ledger problem.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import POSTGRES_SERVER, Verdicts, analyze, bench_database_reset, django_setup, percentile
from bench.load_harness import (
    PINS,
    SERVER_ENV,
    CpuMeter,
    cpu_per_operation,
    ledger_problems,
    pin_cores,
    pinned,
    server_pids,
    signed_in_session_key,
    web_server,
)

NAME, REDIS_DB = "punto_bench_rng", 5
TARGET_P99_SECONDS, TARGET_RATE = 0.050, 500.0
FUNDS, BETS, JITTER = "1000000.00", {"banker": "10.00", "player_pair": "1.00"}, 0.2


def players_ready(count: int, table) -> list[dict]:
    """Funded, signed-in players, each with their private shoe committed: the load generator's specs."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.utils.crypto import get_random_string

    from casino.lifecycle.rng import rng_shoe_ready
    from wagering.wallets import wallet_deposit

    header = settings.CSRF_HEADER_NAME.removeprefix("HTTP_").replace("_", "-")
    specs = []
    for number in range(count):
        user = get_user_model().objects.create_user(username=f"rng-{number}")  # no password to hash: a session
        wallet_deposit(user=user, amount=FUNDS, idempotency_key=uuid.uuid4().hex, reason="bench")
        csrf = get_random_string(32)
        cookie = f"{settings.SESSION_COOKIE_NAME}={signed_in_session_key(user)}; {settings.CSRF_COOKIE_NAME}={csrf}"
        specs.append(
            {
                "path": f"/tables/{table.code}/deal/",
                "cookie": cookie,
                "csrf_header": header,
                "csrf": csrf,
                "bets": BETS,
                "commitment": rng_shoe_ready(table=table, player=user).commitment,
            }
        )
    return specs


def coups_dealt() -> int:
    """The private coups dealt so far (the server's count, whatever the clients saw)."""
    from django.db import connections

    from tables.models import Coup

    count = Coup.objects.filter(player__isnull=False).count()
    connections.close_all()  # not one of the bench database's backends while the meter samples them
    return count


def load_run(url: str, specs: list[dict], *, seconds: float, interval: float, cores: str | None) -> dict:
    """The load generator's run (``bench/rng_clients.py``), with ``cpu``: its seconds of CPU."""
    host, port = url.removeprefix("http://").split(":")
    setup = {"host": host, "port": int(port), "players": specs, "seconds": seconds, "interval": interval}
    setup["jitter"] = JITTER
    command = [*pinned(cores), sys.executable, str(Path(__file__).with_name("rng_clients.py"))]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(command, input=json.dumps(setup), check=True, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(run.stdout)
    for spec, commitment in zip(specs, result["commitments"], strict=True):
        spec["commitment"] = commitment
    result["cpu"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1_000)
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between a player's deals")
    parser.add_argument("--seconds", type=float, default=30.0, help="of load")
    parser.add_argument("--pin", choices=PINS, default="none", help="none (default) or split: see bench/README.md")
    options = parser.parse_args()
    server_cores, client_cores = pin_cores(options.pin)
    django_setup(real=True, name=NAME, redis_db=REDIS_DB)
    from django.conf import settings
    from django.db import connections

    from tables.models import Table
    from tables.services import table_create, table_open

    bench_database_reset()
    rules = {"dealing_mode": Table.DealingMode.RNG, "side_bets": ["player_pair"]}
    table = table_open(table=table_create(code="rng1", name="Deal Your Own", **rules))
    specs = players_ready(options.players, table)
    analyze()
    connections.close_all()
    rate = options.players / options.interval
    print(f"{options.players:,} players each dealing every {options.interval:g} s (±{JITTER:.0%}): {rate:.0f} deals/s")

    SERVER_ENV["DATABASE_URL"] = f"{POSTGRES_SERVER}/{settings.DATABASES['default']['NAME']}"
    SERVER_ENV["REDIS_URL"] = settings.REDIS_URL
    log = Path(tempfile.gettempdir()) / "punto-bench-rng-server.log"
    with web_server(log, cores=server_cores) as (url, server_pid):
        warm_up = load_run(url, specs, seconds=options.interval, interval=options.interval, cores=client_cores)
        print(f"warm-up, not measured: {len(warm_up['deals']):,} deals, errors: {warm_up['errors'] or 'none'}")
        meter = CpuMeter(web=server_pids(server_pid))
        dealt_before = coups_dealt()
        meter.start()
        result = load_run(url, specs, seconds=options.seconds, interval=options.interval, cores=client_cores)
        used = {**meter.stop(), "client": result["cpu"]}
        dealt = coups_dealt() - dealt_before  # committed in the window, answered in time or not

    deals = result["deals"]
    answered = [deal for deal in deals if deal[3] == 200]
    latency = [answered_at - sent for _, sent, answered_at, _ in answered]
    lag = [sent - scheduled for scheduled, sent, _, _ in deals]
    window = max((deal[2] for deal in deals), default=result["until"]) - result["start"]
    achieved = len(answered) / window
    print(f"{len(answered):,} deals answered in {window:.1f} s = {achieved:.1f}/s (asked {rate:.0f}/s)")
    if latency:
        print(
            f"latency a deal (client: request written to answer read): p50 {percentile(latency, 0.5) * 1e3:.1f} ms, "
            f"p99 {percentile(latency, 0.99) * 1e3:.1f} ms, max {max(latency) * 1e3:.1f} ms; sent late by "
            f"p50 {percentile(lag, 0.5) * 1e3:.0f} ms, p99 {percentile(lag, 0.99) * 1e3:.0f} ms"
        )
    print(f"errors: {result['errors'] or 'none'}")
    print(f"{dealt:,} deals committed in the window (CPU a deal counts these: an overloaded server deals on)")
    per = cpu_per_operation(used, dealt, what="deal")
    cores = os.cpu_count() or 1
    for part in ("in all", "web", "PostgreSQL"):
        if per[part]:
            print(
                f"ceiling: at {per[part]:.2f} ms of CPU a deal ({part}) {cores} cores carry at most "
                f"{cores * 1e3 / per[part]:.0f} deals/s (asked {rate:.0f}/s)"
            )
    problems = ledger_problems()
    print(f"ledger checks: {'; '.join(problems) or 'all balanced'}")
    verdicts = Verdicts()
    if options.players / options.interval >= TARGET_RATE:
        verdicts.check(f"deals/s answered (of {rate:.0f} asked)", achieved, 0.95 * rate, at_least=True)
    verdicts.check("latency a deal, p99", percentile(latency, 0.99) if latency else float("inf"), TARGET_P99_SECONDS)
    verdicts.check("errors", sum(result["errors"].values()), 0)
    verdicts.check("ledger problems", len(problems), 0)
    return verdicts.exit_code()


if __name__ == "__main__":
    sys.exit(main())
