"""The multi-host test bed (issue 33): ``sudo .venv/bin/python -m bench.cluster.run [--quick] [--players N]
[--scenarios 1,2,6]``.

Root only: it builds Linux network namespaces joined by a bridge (``bench/cluster/network.py``): ``db``
(PostgreSQL made with ``initdb``, and Redis), ``web1``, ``web2`` (the Procfile's ``web``), ``lb`` (HAProxy with
``deploy/haproxy.cfg``, TLS with a self-signed certificate), ``loop1``, ``loop2`` (``tables``), ``worker``
(``worker`` and ``beat``) and ``client`` (the players, a partner's server and this script's checks). Socket
players bet through the balancer while the scenarios kill and restart hosts; then the tables are closed,
every coup let finish and the books checked. Exits 1 on any loss, 0 when clean; prints SKIPPED (and exits 0)
where it cannot run, with the reason. Everything it made is removed when it ends, whatever happens (and a
previous run's leftovers before it starts).
"""

from __future__ import annotations

import argparse
import fcntl
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.cluster.network import HOSTS, WORK, missing, namespace, network_down, network_up
from bench.common import ROOT

LOGS = Path("/tmp/punto-cluster-logs")
LOCK = Path("/tmp/punto-cluster.lock")  # one run at a time: each removes every punto-* namespace
SCENARIOS = {
    "1": "web1 killed mid-burst",
    "2": "loop1 killed mid-coup",
    "3": "web2 cut off from Redis",
    "4": "Redis restarted",
    "5": "PostgreSQL restarted",
    "6": "rolling restart",
    "7": "worker down a minute",
}


def options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="100 players, every scenario, shorter load phases (about 4 minutes)"
    )
    parser.add_argument("--players", type=int, help="socket players (default 1,000; --quick 100)")
    parser.add_argument("--scenarios", help=f"which, in order (default all: {', '.join(SCENARIOS)})")
    parser.add_argument("--think", type=float, default=None, help="seconds a player waits between bets, on average")
    parser.add_argument("--betting-seconds", type=int, default=6, help="each coup's betting window")
    parser.add_argument("--web-concurrency", type=int, help="uvicorn workers per web host (default: the Procfile's 2)")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.players = args.players or (100 if args.quick else 1000)
    args.scenarios = (args.scenarios or ",".join(SCENARIOS)).split(",")
    args.think = args.think or (1.0 if args.quick else 4.0)
    unknown = [name for name in args.scenarios if name not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenarios {unknown}: known {SCENARIOS}")
    return args


def outside(args: argparse.Namespace) -> int:
    """In the machine's namespace: the network up, this script again in ``client``, everything removed."""
    reasons = missing()
    if reasons:
        print(f"cluster bed SKIPPED: {'; '.join(reasons)}")
        return 0
    lock = open(LOCK, "w")  # noqa: SIM115 (held until the process ends)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"cluster bed: another run holds {LOCK}; not started")
        return 1
    network_down()  # a previous run's leftovers

    def interrupted(number, _frame):
        raise SystemExit(f"interrupted by signal {number}")

    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(number, interrupted)
    try:
        network_up()
        print(f"network: {', '.join(f'{host} {address}' for host, address in HOSTS.items())} on a bridge")
        inner = [sys.executable, "-m", "bench.cluster.run", "--inside", *sys.argv[1:]]
        return subprocess.run(["ip", "netns", "exec", namespace("client"), *inner], cwd=ROOT, check=False).returncode
    finally:
        shutil.rmtree(LOGS, ignore_errors=True)
        if (WORK / "logs").exists():
            shutil.copytree(WORK / "logs", LOGS)
        network_down()
        print(f"the bed's namespaces, processes and files are removed (its logs kept in {LOGS})")


def inside(args: argparse.Namespace) -> int:
    """In the client host's namespace: the hosts started, the players let loose, the scenarios, the books."""
    from bench.cluster import books, hosts, restore, scenarios
    from bench.cluster.players import players_run

    started = time.monotonic()
    env = hosts.app_env(web_concurrency=args.web_concurrency)
    # The bed's own connections: none pooled or kept, so that none outlives a PostgreSQL restart here.
    os.environ.update(env, DJANGO_SETTINGS_MODULE="casino.settings", DATABASE_POOL_MAX_SIZE="0", CONN_MAX_AGE="0")
    postgres, redis = hosts.postgres_init().start(), hosts.redis_process().start()
    hosts.wait_for("PostgreSQL", lambda: hosts.port_open(HOSTS["db"], hosts.PG_PORT))
    hosts.wait_for("Redis", lambda: hosts.port_open(HOSTS["redis"], hosts.REDIS_PORT))
    time.sleep(1)
    hosts.postgres_roles()
    migrate_env = {**os.environ, "DATABASE_MIGRATE_URL": hosts.migrate_url()}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=migrate_env, check=True)
    import django

    django.setup()
    setup = books.bed_setup(players=args.players, partner_players=20, betting_seconds=args.betting_seconds)
    backup = restore.base_backup()
    print(
        f"db: PostgreSQL and Redis up, migrated, {args.players} players, 2 tables, a base backup in {backup:.1f} s "
        f"({time.monotonic() - started:.0f} s)"
    )
    processes = {**hosts.platform(env=env), "postgres": postgres, "redis": redis}
    processes["loop1"].start()
    hosts.wait_for("loop1 dealing", lambda: books.lock_holders().get("loop1") == len(books.TABLES))
    for host in ("loop2", "worker", "web1", "web2"):
        processes[host].start()
    balancer = hosts.haproxy_process().start()
    for host in ("web1", "web2"):
        hosts.wait_for(
            f"{host} at the balancer", lambda host=host: hosts.balancer_states().get(host) == "UP", timeout=90
        )
    print(f"hosts up: loop1 deals, loop2 stands by, worker, web1, web2, lb ({time.monotonic() - started:.0f} s)")

    ours, theirs = multiprocessing.Pipe()
    url = f"wss://{hosts.LB}/ws/tables/{books.TABLES[0]}/"
    think = (args.think * 0.5, args.think * 1.5)
    client = multiprocessing.Process(
        target=players_run, args=(url, str(hosts.CERTIFICATE), setup["sockets"], think, theirs), daemon=True
    )
    client.start()
    partner = books.PartnerServer(key=setup["partner_key"], players=setup["partner_players"], interval=0.25)
    partner.start()
    bed = scenarios.Bed(processes, ours)
    opened = hosts.wait_for(
        "players' sockets", lambda: bed.window()["connected"] >= args.players, timeout=max(180, args.players * 0.6)
    )
    ours.send("go")
    ours.recv()
    print(f"{args.players} sockets open through the balancer in {opened:.0f} s; the players bet")
    bed.play(args.betting_seconds + 4)
    bed.report("warm-up", bed.window())
    run = {
        "1": scenarios.web_killed,
        "2": scenarios.loop_killed,
        "3": scenarios.web_cut_from_redis,
        "4": scenarios.redis_restarted,
        "5": scenarios.postgres_restarted,
        "6": scenarios.rolling_restart,
        "7": scenarios.worker_down,
    }
    for name in args.scenarios:
        print(f"--- scenario {name}: {SCENARIOS[name]}")
        run[name](bed, seconds=10.0 if args.quick else 20.0)
    ours.send("stop")
    players = ours.recv()
    client.join(timeout=60)
    partner.stop.set()
    partner.join(timeout=90)
    if not books.coups_finished(timeout=180):
        bed.problems.append("coups still neither settled nor void 180 s after the tables closed")
    if players["unanswered"]:
        print(f"{len(players['unanswered'])} bets still unanswered when the players stopped (checked: each once)")
    bed.problems += books.books_problems(players=players, partner=partner)
    for name, process in [*processes.items(), ("lb", balancer)]:
        if name != "postgres":
            process.stop(timeout=20)
    bed.problems += restore.restore_problems()
    processes["postgres"].stop(timeout=20)
    print(f"problems: {len(bed.problems)} ({time.monotonic() - started:.0f} s in all; logs in {LOGS} once it ends)")
    for problem in bed.problems:
        print(f"  {problem}")
    return 1 if bed.problems else 0


def main() -> int:
    args = options()
    return inside(args) if args.inside else outside(args)


if __name__ == "__main__":
    sys.exit(main())
