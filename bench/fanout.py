"""Benchmark the live fan-out: ``python bench/fanout.py [--clients N] [--coups N] [--pin split|none]``.

Real components: PostgreSQL, Redis (``channels_redis``) and the ASGI server started as the
Procfile's ``web`` line does (its 2 worker processes), on loopback. Two client processes
open N WebSockets on one table (as browsers: an ``Origin``) and waits for every snapshot. This
process then plays coups through the table services at the table loop's pace, noting the
wall-clock time at which each resolving transaction commits; each client notes when that coup's
``result`` event reaches it. With ``--pin split`` (default) the server runs on core 0 and the client
processes on core 1, so that the clients' reading does not take the server's core. The set-up is
``ANALYZE``d; the CPU per coup of the web processes, the bench database's PostgreSQL backends, Redis and
the clients is printed (``load_harness.CpuMeter``). Target (issue 29): with 5,000 clients across the web
processes, the server on its own core, the result reaches all of them with p99 <= 300 ms after the
commit, and the server holds at most 40 KB of memory per socket (its workers' resident memory once every
client is connected, less what they held before, over the clients); exits 1 on a miss (a client missing
a result is a miss).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing
import os
import re
import resource
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, Verdicts, analyze, baseline_seconds, bench_database_reset, django_setup, percentile
from bench.load_harness import PINS, CpuMeter, cpu_per_operation, free_port, pin_cores, pinned

TARGET_P99_MS = 300.0
TARGET_KB_PER_SOCKET = 40.0
TABLE_CODE = "fanout1"
CONNECTING_AT_ONCE = 100
READY_TIMEOUT = 600.0  # seconds for every client to connect and get its snapshot
COLLECT_TIMEOUT = 15.0  # seconds the clients wait for late results once the last coup is played
ROUTINE_LOG = re.compile(r"connection (open|closed)$|\[accepted\]$")
RESULT_HEAD = '"type": "result"'  # events start with their type: only those frames are parsed


# --- The client process: no Django, only asyncio and websockets -----------------------------


def open_files_raise(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard))


async def _client(
    url: str, gate: asyncio.Semaphore, ready: list[int], results: dict, closed: Counter, frames: list[int]
) -> None:
    from websockets.asyncio.client import connect

    ws = None
    try:
        async with gate:
            ws = await connect(url, origin="http://127.0.0.1", open_timeout=None, ping_interval=None, max_size=None)
        snapshot = json.loads(await ws.recv())
        if snapshot["type"] != "snapshot":
            raise RuntimeError(f"first message {snapshot['type']}, not the snapshot")
        ready.append(1)
        async for frame in ws:
            received = time.time()  # first, before any parsing
            frames[0] += 1
            if RESULT_HEAD in frame[:40]:
                event = json.loads(frame)
                if event["type"] == "result":
                    results[event["data"]["round_id"]].append(received)
        closed["closed by the server"] += 1
    except Exception as error:  # counted and reported: a client lost is a miss, not a crash
        closed[repr(error)[:120]] += 1
    finally:
        if ws is not None:
            await ws.close()


async def _clients_main(url: str, count: int, pipe) -> None:
    gate = asyncio.Semaphore(CONNECTING_AT_ONCE)
    ready: list[int] = []
    closed: Counter = Counter()
    results: dict[str, list[float]] = defaultdict(list)
    start = time.perf_counter()
    frames = [0]
    tasks = [asyncio.create_task(_client(url, gate, ready, results, closed, frames)) for _ in range(count)]
    while len(ready) + closed.total() < count:
        await asyncio.sleep(0.05)
    pipe.send({"ready": len(ready), "failed": dict(closed), "seconds": time.perf_counter() - start})
    loop = asyncio.get_running_loop()
    cpu_start = time.process_time()
    round_ids = await loop.run_in_executor(None, pipe.recv)
    deadline = time.monotonic() + COLLECT_TIMEOUT
    while time.monotonic() < deadline and any(len(results[r]) < len(ready) for r in round_ids):
        await asyncio.sleep(0.05)
    cpu = time.process_time() - cpu_start
    pipe.send({"results": {r: results[r] for r in round_ids}, "closed": dict(closed), "cpu": cpu, "frames": frames[0]})
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def clients_run(url: str, count: int, cores: str | None, pipe) -> None:
    """Entry point of the client process, on ``cores`` when given."""
    import uvloop  # the clients stand for 1,000 browsers: the lighter they are, the more the figures are the server's

    if cores:
        os.sched_setaffinity(0, {int(core) for core in cores.split(",")})
    open_files_raise(count + 100)
    uvloop.run(_clients_main(url, count, pipe))


# --- The bench process: the database, the server, the coups ---------------------------------


CLIENT_PROCESSES = 2  # one a core: a single process reading 5,000 sockets would itself be the wait measured


def client_shares(clients: int) -> list[int]:
    return [clients // CLIENT_PROCESSES + (index < clients % CLIENT_PROCESSES) for index in range(CLIENT_PROCESSES)]


def merged(reports: list[dict]) -> dict:
    """The client processes' reports as one: counts and CPU added, results and failures put together."""
    total: dict = {}
    for report in reports:
        for key, value in report.items():
            if key == "results":
                results = total.setdefault(key, {})
                for round_id, times in value.items():
                    results.setdefault(round_id, []).extend(times)
            elif isinstance(value, dict):
                total.setdefault(key, Counter()).update(value)
            elif key == "seconds":
                total[key] = max(total.get(key, 0), value)
            else:
                total[key] = total.get(key, 0) + value
    return total


def web_command(port: int, cores: str | None) -> list[str]:
    """The Procfile's ``web`` line, on loopback at ``port``, with its default number of workers (on ``cores``)."""
    line = next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:"))
    chosen = {"HOST": "127.0.0.1", "PORT": str(port)}
    line = re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: chosen.get(m[1], m[2]), line.removeprefix("web:"))
    return [*pinned(cores), *shlex.split(line)]


def server_start(port: int, cores: str | None, log) -> subprocess.Popen:
    command = web_command(port, cores)
    server = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, "WS_MAX_CONNECTIONS_PER_ADDRESS": "0"},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the ASGI server exited with {server.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the ASGI server did not listen within 60 s")


def log_tail_print(log) -> None:
    """The end of the server's log, without its line per connection opened or closed."""
    log.seek(0)
    lines = [line for line in log.read().splitlines() if not ROUTINE_LOG.search(line)]
    print("server log (end):", *lines[-80:], sep="\n", file=sys.stderr)


def workers(server_pid: int) -> list[int]:
    """The server's worker processes (its children)."""
    children = []
    for path in Path("/proc").iterdir():
        if path.name.isdigit():
            try:
                parent = int((path / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError):
                continue
            if parent == server_pid:
                children.append(int(path.name))
    return children


def cpu_split(pids: list[int]) -> tuple[float, float]:
    """The CPU time the processes have used so far: in their own code (user), in the kernel (system)."""
    user = system = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        user, system = user + int(fields[11]), system + int(fields[12])
    return user / os.sysconf("SC_CLK_TCK"), system / os.sysconf("SC_CLK_TCK")


def memory_mb(pids: list[int], field: str) -> float:
    """The processes' resident memory (``VmRSS``) or its peak (``VmHWM``), summed, in MB."""
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                total += int(line.split()[1])
    return total / 1024


def table_with_shoe():
    from django.contrib.auth import get_user_model

    from tables.services import table_create, table_open
    from tables.shoes import shoe_prepare, shoe_start

    boss = get_user_model().objects.create_user(username="fanout-boss")
    table = table_create(code=TABLE_CODE, name="Fan-out", actor=boss)
    table = table_open(table=table, actor=boss)
    shoe_start(shoe=shoe_prepare(table=table))
    return table


def coup_play(table) -> tuple[str, float]:
    """One coup at the table loop's pace (a card every ``CARD_INTERVAL``, the result up for ``RESULT_PAUSE``);
    the round id and the time its resolution committed."""
    from django.db import transaction

    from casino import lifecycle
    from casino.lifecycle.loop import CARD_INTERVAL, RESULT_PAUSE
    from tables.coups import coup_open
    from tables.dealing import coup_deal_card
    from tables.selectors import coup_deal_state

    coup = coup_open(table=table)
    coup = lifecycle.coup_close_betting(coup=coup)
    while not coup_deal_state(coup=coup).complete:
        time.sleep(CARD_INTERVAL)
        coup_deal_card(coup=coup)
    time.sleep(CARD_INTERVAL)
    committed: list[float] = []
    with transaction.atomic():
        transaction.on_commit(lambda: committed.append(time.time()))  # runs first: before the events go out
        lifecycle.coup_resolve(coup=coup)
    time.sleep(RESULT_PAUSE)  # the result stays up before the next coup opens, as the table loop keeps it
    return coup.round_id, committed[0]


def report(commits: dict[str, float], results: dict[str, list[float]], clients: int) -> tuple[list[float], int]:
    """Print each coup's figures; all latencies in seconds, and the fewest clients a result reached."""
    latencies: list[float] = []
    fewest = clients
    for round_id, committed in commits.items():
        mine = [received - committed for received in results.get(round_id, [])]
        fewest = min(fewest, len(mine))
        latencies += mine
        figures = "none"
        if mine:
            figures = f"first {min(mine) * 1e3:6.1f} ms, p50 {percentile(mine, 0.5) * 1e3:6.1f} ms, "
            figures += f"max {max(mine) * 1e3:6.1f} ms"
        print(f"  {round_id:<24} {len(mine):5d}/{clients} clients  {figures}")
    return latencies, fewest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=5000)
    parser.add_argument("--coups", type=int, default=8)
    parser.add_argument("--pin", choices=PINS, default="split", help="split (default) or none: see bench/README.md")
    args = parser.parse_args()
    server_cores, client_cores = pin_cores(args.pin)
    baseline = baseline_seconds()
    django_setup(real=True, name="punto_bench_fanout", redis_db=6)
    import redis
    from django.conf import settings

    from casino import celery_app

    bench_database_reset()
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    celery_app.conf.task_always_eager = True  # settlement (and its event) follows each result, as a worker would
    logging.getLogger("celery").setLevel(logging.WARNING)
    table = table_with_shoe()
    analyze()
    open_files_raise(args.clients + 100)  # inherited by the server
    port = free_port()
    with tempfile.NamedTemporaryFile("w+", prefix="fanout-uvicorn-", suffix=".log") as log:
        server = server_start(port, server_cores, log)
        time.sleep(2)  # the workers started and imported the project
        web = workers(server.pid)
        rss_before = memory_mb(web, "VmRSS")
        url = f"ws://127.0.0.1:{port}/ws/tables/{TABLE_CODE}/"
        spawn = multiprocessing.get_context("spawn")
        pipes, clients = [], []
        for share in client_shares(args.clients):
            ours, theirs = spawn.Pipe()
            pipes.append(ours)
            clients.append(spawn.Process(target=clients_run, args=(url, share, client_cores, theirs)))
            clients[-1].start()
        try:
            if not all(pipe.poll(READY_TIMEOUT) for pipe in pipes):
                raise RuntimeError("the clients were not ready in time")
            ready = merged([pipe.recv() for pipe in pipes])
            rss_connected = memory_mb(web, "VmRSS")
            cpu_before = cpu_split(web)
            meter = CpuMeter(web=web, client=[client.pid for client in clients])
            meter.start()
            commits = dict(coup_play(table) for _ in range(args.coups))
            used = meter.stop()
            user, system = (after - before for after, before in zip(cpu_split(web), cpu_before, strict=True))
            cpu_per_coup, kernel_share = (user + system) / args.coups, system / max(user + system, 1e-9)
            for pipe in pipes:
                pipe.send(list(commits))
            collected = merged([pipe.recv() for pipe in pipes])
            peak = memory_mb(web, "VmHWM")
            if ready["failed"] or collected["closed"]:
                log_tail_print(log)
        except BaseException:
            log_tail_print(log)
            raise
        finally:
            for client in clients:
                client.kill()
            server.terminate()
            server.wait(timeout=30)

    print(f"fan-out: {args.clients} WebSocket clients on one table, {args.coups} coups")
    print(f"  server    {' '.join(web_command(port, server_cores))}")
    print(f"  connected {ready['ready']} with their snapshot in {ready['seconds']:.1f} s")
    print(f"  failed    {ready['failed'] or 0}")
    latencies, fewest = report(commits, collected["results"], args.clients)
    p99 = percentile(latencies, 0.99) if latencies else float("inf")
    if latencies:
        print(
            f"  result after commit: p50 {percentile(latencies, 0.5) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, "
            f"max {max(latencies) * 1e3:.1f} ms (n={len(latencies)}; p99 = {p99 / baseline:.1f} x baseline)"
        )
    print(f"  lost      {collected['closed'] or 0}")
    events = collected["frames"] / max(ready["ready"], 1) / args.coups
    print(
        f"  events    {events:.1f} per coup to each socket; the {CLIENT_PROCESSES} client processes' CPU "
        f"{collected['cpu'] / args.coups * 1e3:.0f} ms per coup"
    )
    per_socket = (rss_connected - rss_before) * 1024 / max(ready["ready"], 1)
    print(
        f"  {len(web)} web processes: {rss_before:.1f} MB before the clients, {rss_connected:.1f} MB with them "
        f"({per_socket:.1f} KB per socket), peak {peak:.1f} MB; CPU {cpu_per_coup * 1e3:.0f} ms per coup (all events), "
        f"{kernel_share:.0%} of it in the kernel (the sockets' writes over loopback)"
    )
    cpu_per_operation(used, args.coups, what="coup")  # all its events to every socket
    print(
        f"  target    p99 <= {TARGET_P99_MS:g} ms to all {args.clients} clients, "
        f"<= {TARGET_KB_PER_SOCKET:g} KB per socket"
    )
    print(f"  baseline  {baseline * 1e3:.2f} ms (100,000-step pure-Python loop)")
    verdicts = Verdicts()
    verdicts.check("clients reached by every result", fewest, args.clients, at_least=True)
    verdicts.check("result p99 after commit", p99 * 1e3, TARGET_P99_MS, unit=" ms")
    verdicts.check("server memory per socket", per_socket, TARGET_KB_PER_SOCKET, unit=" KB")
    return verdicts.exit_code()


if __name__ == "__main__":
    sys.exit(main())
