"""What the benchmarks that load the ``Procfile``'s web server share (``placement.py`` over HTTP,
``intake.py`` over sockets; ``fanout.py`` starts its own and takes a free port from here): the server
itself, its processes and their CPU, pgbench's TPS on the same PostgreSQL for scale, signed-in players'
sessions, and the ledger's checks while coups still take bets.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from bench.common import ROOT

PGBENCH_DATABASE = "punto_bench_pgbench"
PGBENCH_SERVER = ["-h", "127.0.0.1", "-p", "5432", "-U", "postgres"]
# The web server's environment: each benchmark adds its database, Redis and settings before starting it.
SERVER_ENV = {"DEBUG": "0", "PARTNER_API_RATE": "1000000/min", "HOST": "127.0.0.1"}


# --- pgbench -------------------------------------------------------------------------------------


def pgbench_tps(*, seconds: int, clients: int) -> float:
    """``pgbench -N -c <clients> -j 2 -T <seconds>`` on a scratch database of the same PostgreSQL server."""
    subprocess.run(["dropdb", *PGBENCH_SERVER, "--if-exists", "--force", PGBENCH_DATABASE], check=True)
    subprocess.run(["createdb", *PGBENCH_SERVER, PGBENCH_DATABASE], check=True)
    subprocess.run(["pgbench", *PGBENCH_SERVER, "-i", "-q", PGBENCH_DATABASE], check=True, capture_output=True)
    tps = pgbench_run("-N", database=PGBENCH_DATABASE, seconds=seconds, clients=clients)
    subprocess.run(["dropdb", *PGBENCH_SERVER, "--force", PGBENCH_DATABASE], check=True)
    return tps


def pgbench_run(*options: str, database: str, seconds: int, clients: int) -> float:
    """The TPS of ``pgbench <options>`` with ``clients`` clients for ``seconds``."""
    command = ["pgbench", *PGBENCH_SERVER, *options, "-c", str(clients), "-j", "2", "-T", str(seconds), database]
    run = subprocess.run(command, check=True, capture_output=True, text=True)
    return float(re.search(r"tps = ([\d.]+)", run.stdout).group(1))


# --- The web server and its processes ------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def web_server(log: Path):
    """The Procfile's ``web`` process on the bench database, on a free loopback port, until it answers."""
    command = next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:"))
    port = free_port()
    env = {**os.environ, **SERVER_ENV, "PORT": str(port)}
    env.pop("WEB_CONCURRENCY", None)  # the Procfile's default number of workers
    with log.open("w") as output:
        server = subprocess.Popen(
            ["sh", "-c", command.removeprefix("web:").strip()],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                if server.poll() is not None:
                    sys.exit(f"the web server stopped: see {log}")
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", server.pid
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time the processes have used so far (those gone meanwhile count 0)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def server_pids(server_pid: int) -> tuple[list[int], list[int]]:
    """The web server's processes (its process group) and the PostgreSQL backends of the bench database."""
    from django.db import connection

    group = [
        int(path.name) for path in Path("/proc").iterdir() if path.name.isdigit() and _group_of(path) == server_pid
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        backends = [pid for (pid,) in cursor.fetchall()]
    connection.close()
    return group, backends


def _group_of(path: Path) -> int | None:
    try:
        return int((path / "stat").read_text().rsplit(")", 1)[1].split()[2])
    except (OSError, IndexError, ValueError):
        return None


# --- Players and the books -----------------------------------------------------------------------


def signed_in_session_key(user) -> str:
    """The key of a new session in which ``user`` is signed in, as Django's sign-in stores it."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def ledger_problems() -> list[str]:
    """What ``ledger_check`` and ``settlement_check`` (the coups still taking bets) find wrong: the ledger's
    invariants, each wallet from its deposits and bets, each table's bets in play = its accepted stakes."""
    from wagering.checks import ledger_check, settlement_check

    check = ledger_check()
    print(f"ledger: {check.transactions} transactions, {check.entries} entries")
    return check.problems + settlement_check(finished=False).problems
