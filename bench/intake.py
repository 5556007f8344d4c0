"""Benchmark the bet intake over WebSockets: ``python bench/intake.py [--players N] [--bets N]``.

Real components: PostgreSQL, Redis and the ``Procfile``'s web server (2 processes, group commit on).
N signed-in players (1,000 by default) with wallets each hold a socket on one table (a separate client
process: asyncio and websockets, no Django). At the signal, as a betting window closes, every player
confirms bets one after another (``--bets`` each, 1.00 on Player or Banker, a request_id each), each
as soon as the previous one is answered. Printed: accepted bets per second, ack latency p50/p99, the
batches the intake committed, the client process's own CPU (to show it is not the limit), and
``pgbench -N`` on the same server in the same run. Targets (issue 16): accepted bets/s >= 0.5 x
pgbench's TPS, ack p99 <= 100 ms. Afterwards every acknowledged bet exists once, every wallet is its
deposit minus its accepted stakes, and the ledger and settlement checks are clean. Exits 1 on a miss.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import POSTGRES_SERVER, Verdicts, bench_database_reset, django_setup, percentile
from bench.load_harness import (
    SERVER_ENV,
    cpu_seconds,
    ledger_problems,
    pgbench_tps,
    server_pids,
    signed_in_session_key,
    web_server,
)

NAME, REDIS_DB = "punto_bench_intake", 6
TABLE_CODE = "intake1"
PLAYERS, BETS_EACH, PGBENCH_SECONDS, PGBENCH_CLIENTS = 1000, 5, 20, 64
FUNDS, STAKE = "1000.00", "1.00"
CONNECTING_AT_ONCE = 100
TARGET_RATIO, TARGET_P99_MS = 0.5, 100.0


# --- The client process: no Django, only asyncio and websockets -----------------------------


async def _player(url: str, cookie: str, side: str, round_id: str, bets: int, gate, ready, go, acks, refusals):
    from websockets.asyncio.client import connect

    async with gate:
        ws = await connect(
            url, origin="http://127.0.0.1", additional_headers={"Cookie": cookie}, ping_interval=None, max_size=None
        )
    try:
        json.loads(await ws.recv())  # the snapshot
        ready.append(1)
        await go.wait()
        for _ in range(bets):
            request_id = str(uuid.uuid4())
            sent = time.perf_counter()
            await ws.send(
                json.dumps({"type": "bet", "request_id": request_id, "round_id": round_id, "bets": {side: STAKE}})
            )
            while True:
                answer = json.loads(await ws.recv())
                if answer.get("request_id") == request_id:
                    break
            if answer["type"] == "bet_accepted":
                acks.append((sent, time.perf_counter(), request_id))
            else:
                refusals[answer["error"]["code"]] += 1
    finally:
        await ws.close()


async def _clients_main(url: str, players: list[tuple[str, str]], round_id: str, bets: int, pipe) -> None:
    gate, go = asyncio.Semaphore(CONNECTING_AT_ONCE), asyncio.Event()
    ready, acks, refusals = [], [], Counter()
    tasks = [
        asyncio.create_task(_player(url, cookie, side, round_id, bets, gate, ready, go, acks, refusals))
        for cookie, side in players
    ]
    while len(ready) < len(players) and not any(task.done() for task in tasks):
        await asyncio.sleep(0.05)
    pipe.send({"ready": len(ready)})
    await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
    cpu_before = time.process_time()
    go.set()
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    errors = Counter(repr(outcome)[:100] for outcome in outcomes if isinstance(outcome, BaseException))
    pipe.send(
        {"acks": acks, "refusals": dict(refusals), "errors": dict(errors), "cpu": time.process_time() - cpu_before}
    )


def clients_run(url: str, players: list[tuple[str, str]], round_id: str, bets: int, pipe) -> None:
    import uvloop

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, len(players) + 200), hard), hard))
    uvloop.run(_clients_main(url, players, round_id, bets, pipe))


# --- The bench process -------------------------------------------------------------------------


def table_with_open_coup():
    """A table whose coup takes bets for the whole run, with limits that a thousand players stay within."""
    from django.conf import settings

    from tables.coups import coup_open
    from tables.limit_sets import bet_limit_set, limit_set_update
    from tables.services import table_create, table_open
    from tables.shoes import shoe_prepare, shoe_start

    table = table_create(code=TABLE_CODE, name="Intake", betting_seconds=3600)
    limit_set_update(table=table, actor=None, currency=settings.HOUSE_CURRENCY, max_differential="100000")
    for bet_type in ("player", "banker"):
        bet_limit_set(table=table, actor=None, bet_type=bet_type, minimum="1", maximum="1000", table_maximum=None)
    table_open(table=table)
    shoe_start(shoe=shoe_prepare(table=table))
    return coup_open(table=table)


def players_signed_in(count: int) -> list[tuple[object, str, str]]:
    """``count`` players with funded wallets and a session each: (user, cookie, side)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from wagering.wallets import wallet_deposit

    players = []
    for number in range(count):
        user = get_user_model().objects.create_user(username=f"intake-{number}")
        wallet_deposit(user=user, amount=FUNDS, idempotency_key=uuid.uuid4().hex, reason="bench")
        cookie = f"{settings.SESSION_COOKIE_NAME}={signed_in_session_key(user)}"
        players.append((user, cookie, ("player", "banker")[number % 2]))
    return players


def intake_batches(url: str, token: str) -> tuple[float, float, float]:
    """(requests, batches, seconds) the server's intake committed, from its /metrics."""
    import urllib.request

    request = urllib.request.Request(f"{url}/metrics", headers={"Authorization": f"Bearer {token}"})
    text = urllib.request.urlopen(request, timeout=10).read().decode()
    figures = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name.startswith(("punto_intake_batch_size_", "punto_intake_commit_seconds_")):
            figures[name] = float(value)
    return (
        figures.get("punto_intake_batch_size_sum", 0.0),
        figures.get("punto_intake_batch_size_count", 0.0),
        figures.get("punto_intake_commit_seconds_sum", 0.0),
    )


def named(command: str) -> list[int]:
    """The processes running ``command`` (all PostgreSQL's, all Redis's: the server's share of the work)."""
    pids = []
    for path in Path("/proc").iterdir():
        if path.name.isdigit():
            try:
                if (path / "comm").read_text().strip() == command:
                    pids.append(int(path.name))
            except OSError:
                continue
    return pids


def books_problems(players, acks: list) -> list[str]:
    """Every acknowledged bet once, every wallet = deposit - accepted stakes, the ledger's checks."""
    from decimal import Decimal

    from wagering.models import Bet, BetRequest
    from wagering.selectors import wallet_balance

    problems = ledger_problems()
    acknowledged = {request_id for _, _, request_id in acks}
    recorded = set(BetRequest.objects.filter(accepted=True).values_list("key", flat=True))
    if acknowledged - recorded:
        problems.append(f"{len(acknowledged - recorded)} acknowledged bets not in the books")
    if Bet.objects.count() != len(recorded):
        problems.append(f"{Bet.objects.count()} bets for {len(recorded)} accepted requests")
    stakes = Counter(Bet.objects.values_list("user_id", flat=True))
    wrong = [
        user.pk
        for user, _, _ in players
        if wallet_balance(user=user) != Decimal(FUNDS) - Decimal(STAKE) * stakes[user.pk]
    ]
    if wrong:
        problems.append(f"{len(wrong)} wallets not their deposit minus their stakes")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=PLAYERS)
    parser.add_argument("--bets", type=int, default=BETS_EACH, help="bets each player confirms, one after another")
    options = parser.parse_args()
    django_setup(real=True, name=NAME, redis_db=REDIS_DB)
    from django.conf import settings
    from django.db import connections

    bench_database_reset()
    coup = table_with_open_coup()
    players = players_signed_in(options.players)
    connections.close_all()
    print(f"{options.players} players on one table, {options.bets} bets each over their sockets")
    tps = pgbench_tps(seconds=PGBENCH_SECONDS, clients=PGBENCH_CLIENTS)
    print(f"pgbench -N -c {PGBENCH_CLIENTS} -j 2 -T {PGBENCH_SECONDS}: {tps:.1f} TPS")

    SERVER_ENV["DATABASE_URL"] = f"{POSTGRES_SERVER}/{settings.DATABASES['default']['NAME']}"
    SERVER_ENV["REDIS_URL"] = settings.REDIS_URL
    SERVER_ENV["BET_INTAKE_GROUP_COMMIT"] = "true"
    SERVER_ENV["METRICS_TOKEN"] = token = uuid.uuid4().hex
    metrics_dir = tempfile.TemporaryDirectory(prefix="punto-bench-intake-metrics-")
    SERVER_ENV["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir.name
    log = Path(tempfile.gettempdir()) / "punto-bench-intake-server.log"
    with web_server(log) as (url, server_pid):
        socket_url = url.replace("http://", "ws://") + f"/ws/tables/{TABLE_CODE}/"
        ours, theirs = multiprocessing.Pipe()
        clients = multiprocessing.Process(
            target=clients_run,
            args=(socket_url, [(cookie, side) for _, cookie, side in players], coup.round_id, options.bets, theirs),
        )
        clients.start()
        print(f"sockets ready: {ours.recv()['ready']}")
        components = {
            "web": server_pids(server_pid)[0],
            "PostgreSQL": named("postgres"),
            "Redis": named("redis-server"),
        }
        cpu_before = {name: cpu_seconds(pids) for name, pids in components.items()}
        ours.send("go")
        result = ours.recv()
        cpu_used = {name: cpu_seconds(pids) - cpu_before[name] for name, pids in components.items()}
        clients.join(timeout=60)
        batches = intake_batches(url, token)
    metrics_dir.cleanup()

    acks = result["acks"]
    latencies = [(answered - sent) * 1000 for sent, answered, _ in acks]
    elapsed = max(answered for _, answered, _ in acks) - min(sent for sent, _, _ in acks) if acks else 1.0
    rate = len(acks) / elapsed
    print(f"accepted: {len(acks)} in {elapsed:.2f} s = {rate:.1f} bets/s ({rate / tps:.3f} of pgbench's TPS)")
    if latencies:
        p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
        print(f"ack latency: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(latencies):.1f} ms")
    else:
        p99 = float("inf")
    requests, committed, seconds = batches
    print(
        f"intake: {committed:.0f} batches committed, {requests / max(committed, 1):.1f} requests and "
        f"{seconds / max(committed, 1) * 1000:.1f} ms each on average (carried out, committed, events sent)"
    )
    print(f"refused: {result['refusals'] or 'none'}; client errors: {result['errors'] or 'none'}")
    print(f"the client process's CPU: {result['cpu']:.2f} s over {elapsed:.2f} s")
    cpu_used["client"] = result["cpu"]
    per_bet = ", ".join(f"{name} {seconds / max(len(acks), 1) * 1000:.2f}" for name, seconds in cpu_used.items())
    print(
        f"CPU per accepted bet, ms: {per_bet}; in all {sum(cpu_used.values()) / max(len(acks), 1) * 1000:.2f} "
        f"(the machine's {os.cpu_count()} cores give {os.cpu_count() * 1000 / max(rate, 1):.2f} ms a bet at this rate)"
    )
    database = cpu_used["PostgreSQL"] / max(len(acks), 1)
    if database:
        print(
            f"PostgreSQL alone takes {database * 1000:.2f} ms of CPU a bet (with its commit's triggers and foreign keys"
            f"): at most {os.cpu_count() / database:.0f} bets/s on these {os.cpu_count()} cores"
        )
    per_bet_all = sum(cpu_used.values()) / max(len(acks), 1)
    if per_bet_all:
        ceiling = os.cpu_count() / per_bet_all
        print(
            f"the CPU a bet takes in all ({per_bet_all * 1000:.2f} ms) on {os.cpu_count()} cores: at most "
            f"{ceiling:.0f} bets/s, {ceiling / tps:.3f} of pgbench's TPS; {TARGET_RATIO:g} of it needs at most "
            f"{os.cpu_count() / (TARGET_RATIO * tps) * 1000:.2f} ms a bet in all"
        )
    in_flight = options.players
    print(
        f"Little's law: {in_flight} players each waiting for their answer at {rate:.0f} bets/s wait "
        f"{in_flight / rate * 1000:.0f} ms on average; an ack p99 of {TARGET_P99_MS:.0f} ms with {in_flight} in flight "
        f"takes {in_flight / TARGET_P99_MS * 1000:.0f} bets/s"
    )
    problems = books_problems(players, acks)
    print(f"books: {'; '.join(problems) or 'every acknowledged bet once, every wallet right, ledger balanced'}")

    verdicts = Verdicts()
    verdicts.check("accepted bets/s vs pgbench TPS", rate / tps, TARGET_RATIO, at_least=True)
    verdicts.check("ack p99 latency", p99, TARGET_P99_MS, unit=" ms")
    verdicts.check("refusals and client errors", sum(result["refusals"].values()) + sum(result["errors"].values()), 0)
    verdicts.check("books problems", len(problems), 0)
    return verdicts.exit_code()


if __name__ == "__main__":
    sys.exit(main())
