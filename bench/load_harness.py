"""What the benchmarks that load the ``Procfile``'s web server share (``placement.py`` over HTTP,
``intake.py`` over sockets; ``fanout.py`` starts its own and takes a free port from here): the server
itself (pinned to a core with ``taskset`` when asked), its processes and the CPU of each component
(``CpuMeter``), pgbench's TPS on the same PostgreSQL for scale, signed-in players' sessions, and the
ledger's checks while coups still take bets.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from bench.common import ROOT

# The web server's environment: each benchmark adds its database, Redis and settings before starting it.
SERVER_ENV = {"DEBUG": "0", "PARTNER_API_RATE": "1000000/min", "HOST": "127.0.0.1"}
# ``--pin``: where the web server and the load generator run. ``split``: the server on core 0, the load
# generator on core 1 (PostgreSQL and Redis, shared services, where the kernel puts them); ``none``: anywhere.
PINS = {"none": (None, None), "split": ("0", "1")}


# --- pgbench -------------------------------------------------------------------------------------


def pgbench_server() -> list[str]:
    """pgbench's connection options: the bench database's server and user (``BENCH_DATABASE_URL``'s)."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    host, port = database.get("HOST") or "127.0.0.1", str(database.get("PORT") or 5432)
    return ["-h", host, "-p", port, "-U", database.get("USER") or "postgres"]


def pgbench_database() -> str:
    """pgbench's scratch database: ``BENCH_PGBENCH_DATABASE``, else named after the bench's own database,
    so that no two benchmarks drop each other's."""
    from django.conf import settings

    return os.environ.get("BENCH_PGBENCH_DATABASE") or f"{settings.DATABASES['default']['NAME']}_pgbench"


def pgbench_tps(*, seconds: int, clients: int) -> float:
    """``pgbench -N -c <clients> -j 2 -T <seconds>`` on a scratch database of the same PostgreSQL server."""
    server, name = pgbench_server(), pgbench_database()
    subprocess.run(["dropdb", *server, "--if-exists", "--force", name], check=True)
    subprocess.run(["createdb", *server, name], check=True)
    subprocess.run(["pgbench", *server, "-i", "-q", name], check=True, capture_output=True)
    tps = pgbench_run("-N", database=name, seconds=seconds, clients=clients)
    subprocess.run(["dropdb", *server, "--force", name], check=True)
    return tps


def pgbench_run(*options: str, database: str, seconds: int, clients: int) -> float:
    """The TPS of ``pgbench <options>`` with ``clients`` clients for ``seconds``."""
    command = ["pgbench", *pgbench_server(), *options, "-c", str(clients), "-j", "2", "-T", str(seconds), database]
    run = subprocess.run(command, check=True, capture_output=True, text=True)
    return float(re.search(r"tps = ([\d.]+)", run.stdout).group(1))


# --- The web server and its processes ------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pin_cores(choice: str) -> tuple[str | None, str | None]:
    """The cores of the web server and of the load generator for ``--pin`` (none on a 1-core machine)."""
    cores = PINS[choice] if (os.cpu_count() or 1) >= 2 else PINS["none"]
    print(f"pinned ({choice}): web server on cores {cores[0] or 'any'}, load generator on cores {cores[1] or 'any'}")
    return cores


def pinned(cores: str | None) -> list[str]:
    """The ``taskset`` prefix that runs a command on ``cores`` (nothing when ``None``)."""
    return ["taskset", "-c", cores] if cores else []


@contextmanager
def web_server(log: Path, *, cores: str | None = None):
    """The Procfile's ``web`` process on the bench database, on a free loopback port (its processes on
    ``cores`` when given), until it answers."""
    command = next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:"))
    command = " ".join([*pinned(cores), command.removeprefix("web:").strip()])
    port = free_port()
    env = {**os.environ, **SERVER_ENV, "PORT": str(port)}
    env.pop("WEB_CONCURRENCY", None)  # the Procfile's default number of workers
    with log.open("w") as output:
        server = subprocess.Popen(
            ["sh", "-c", command],
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
    """User and system CPU time the processes have used so far, every thread of each (those gone count 0)."""
    return sum(_ticks(pid) for pid in pids) / os.sysconf("SC_CLK_TCK")


def _ticks(pid: int) -> int:
    """utime + stime of ``/proc/<pid>/stat``: the whole thread group's, its exited threads included."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def server_pids(server_pid: int) -> list[int]:
    """The web server's processes: its process group (the shell, uvicorn and its workers)."""
    return [int(path.name) for path in Path("/proc").iterdir() if path.name.isdigit() and _group_of(path) == server_pid]


def processes_named(command: str) -> list[int]:
    """The processes whose command name is ``command`` (``redis-server``)."""
    pids = []
    for path in Path("/proc").iterdir():
        if path.name.isdigit():
            try:
                if (path / "comm").read_text().strip() == command:
                    pids.append(int(path.name))
            except OSError:
                continue
    return pids


def _group_of(path: Path) -> int | None:
    try:
        return int((path / "stat").read_text().rsplit(")", 1)[1].split()[2])
    except (OSError, IndexError, ValueError):
        return None


class CpuMeter:
    """The CPU each component used between ``start()`` and ``stop()``, from ``/proc/<pid>/stat``:

    - ``web``: the given web processes (every thread of each);
    - ``PostgreSQL``: the backends connected to the bench's own database, found in ``pg_stat_activity``
      every ``interval`` seconds during the window (backends come and go; one that came and went between
      two samples is missed: the web processes' pools keep theirs for the whole run). The sampler connects
      to the ``postgres`` database, so it is not one of them;
    - ``PostgreSQL server-wide``: the server's background processes (walwriter, checkpointer, background
      writer...), which work for every database on the server: printed apart, not in the sum;
    - ``Redis``: every ``redis-server`` (shared by every Redis database of the machine);
    - ``client``: the load generator's processes, when given (else the caller adds its own figure).
    """

    def __init__(
        self, *, web: list[int], client: list[int] | None = None, interval: float = 0.2, quiet: bool = False
    ) -> None:
        from django.conf import settings

        database = settings.DATABASES["default"]
        self.database = database["NAME"]
        self.connect = {
            "host": database.get("HOST") or "127.0.0.1",
            "port": database.get("PORT") or 5432,
            "user": database.get("USER") or "postgres",
            "password": database.get("PASSWORD") or None,
            "dbname": "postgres",
            "autocommit": True,
        }
        self.groups = {"web": web, "Redis": processes_named("redis-server"), "client": client or []}
        self.interval, self.quiet = interval, quiet
        self.first: dict[int, int] = {}  # backend pid: its ticks when first seen
        self.last: dict[int, int] = {}  # backend pid: its ticks when last seen
        self.before: dict[str, int] = {}
        self.stopping = threading.Event()

    def _sample(self, cursor, *, starting: bool = False) -> None:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.database])
        for (pid,) in cursor.fetchall():
            ticks = _ticks(pid)
            # Seen first after the start: a backend born in the window, all of its CPU is the window's.
            self.first.setdefault(pid, ticks if starting else 0)
            if ticks:
                self.last[pid] = ticks

    def _background(self, cursor) -> list[int]:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE backend_type <> 'client backend' AND datname IS NULL")
        return [pid for (pid,) in cursor.fetchall()]

    def _run(self) -> None:
        while not self.stopping.wait(self.interval):
            self._sample(self.cursor)

    def start(self) -> None:
        import psycopg

        self.connection = psycopg.connect(**self.connect)
        self.cursor = self.connection.cursor()
        self.groups["PostgreSQL server-wide"] = self._background(self.cursor)
        self.before = {name: sum(map(_ticks, pids)) for name, pids in self.groups.items()}
        self._sample(self.cursor, starting=True)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def stop(self) -> dict[str, float]:
        """Seconds of CPU by component: web, PostgreSQL (own backends), Redis, client, PostgreSQL server-wide."""
        self.stopping.set()
        self.thread.join()
        self._sample(self.cursor)
        self.connection.close()
        tick = os.sysconf("SC_CLK_TCK")
        used = {name: (sum(map(_ticks, pids)) - self.before[name]) / tick for name, pids in self.groups.items()}
        used["PostgreSQL"] = sum(self.last.get(pid, first) - first for pid, first in self.first.items()) / tick
        if not self.quiet:
            print(f"CPU meter: {len(self.first)} PostgreSQL backends of {self.database} seen in the window")
        return used


def cpu_per_operation(used: dict[str, float], operations: int, *, what: str) -> dict[str, float]:
    """Print and return the milliseconds of CPU per operation by component, and in all (web, PostgreSQL's
    own backends, Redis, client: the server-wide PostgreSQL processes printed apart, not in the sum)."""
    count = max(operations, 1)
    per = {name: seconds / count * 1e3 for name, seconds in used.items()}
    counted = [name for name in ("web", "PostgreSQL", "Redis", "client") if name in per]
    per["in all"] = sum(per[name] for name in counted)
    parts = ", ".join(
        f"{'PostgreSQL (own backends)' if name == 'PostgreSQL' else name} {per[name]:.3f}" for name in counted
    )
    server_wide = per.get("PostgreSQL server-wide")
    print(
        f"CPU per {what}, ms: {parts}; in all {per['in all']:.3f}"
        + (
            f" (PostgreSQL server-wide, walwriter and the like, for every database: {server_wide:.3f})"
            if server_wide is not None
            else ""
        )
        + f" [{what}s: {operations}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores]"
    )
    return per


# --- Players and the books -----------------------------------------------------------------------


def signed_in_session_key(user) -> str:
    """The key of a new session in which ``user`` is signed in, as Django's sign-in stores it."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.PERMISSION_BACKEND
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
