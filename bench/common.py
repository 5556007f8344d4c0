"""What every benchmark shares: the machine baseline, Django set-up, and the verdict lines.

A time alone says little on a small, noisy machine, so each benchmark also prints it as a
ratio to ``baseline_seconds()``: a fixed pure-Python loop timed in the same run.
Each target is printed as ``target <name>: <figure> (limit <limit>) MET|MISSED`` and the
script exits 1 when any target is missed (``Verdicts.exit_code``).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE_STEPS = 100_000
POSTGRES_SERVER = "postgres://postgres@127.0.0.1:5432"
REDIS_SERVER = "redis://127.0.0.1:6379"


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def baseline_seconds() -> float:
    """A fixed pure-Python loop, best of 5: the unit of the machine-independent ratios."""

    def loop() -> int:
        total = 0
        for i in range(BASELINE_STEPS):
            total += i * i % 7
        return total

    return min(timed(loop) for _ in range(5))


def percentile(values: Sequence[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(fraction * len(ordered) + 0.5)))
    return ordered[rank - 1]


def describe(values: Sequence[float]) -> str:
    """Median, p99 and max of durations in seconds, in milliseconds."""
    return (
        f"median {statistics.median(values) * 1e3:.2f} ms, p99 {percentile(values, 0.99) * 1e3:.2f} ms, "
        f"max {max(values) * 1e3:.2f} ms (n={len(values)})"
    )


def django_setup(*, real: bool, name: str = "punto_bench", redis_db: int = 3) -> None:
    """Configure Django for a benchmark. ``real``: PostgreSQL and Redis, on a database of the
    benchmark's own (``name``, never the platform's), unless ``BENCH_DATABASE_URL`` /
    ``BENCH_REDIS_URL`` say where. Without ``real``: the embedded default."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    if real:
        os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", f"{POSTGRES_SERVER}/{name}")
        os.environ["REDIS_URL"] = os.environ.get("BENCH_REDIS_URL", f"{REDIS_SERVER}/{redis_db}")
    else:
        os.environ.pop("DATABASE_URL", None)
        os.environ.pop("REDIS_URL", None)
    import django

    django.setup()


def bench_database_reset() -> None:
    """Drop and re-create the bench database, then migrate it (PostgreSQL only)."""
    import subprocess

    from django.conf import settings

    database = settings.DATABASES["default"]
    name, host, port = database["NAME"], database.get("HOST") or "127.0.0.1", str(database.get("PORT") or 5432)
    user = database.get("USER") or "postgres"
    args = ["-h", host, "-p", port, "-U", user]
    subprocess.run(["dropdb", *args, "--if-exists", "--force", name], check=True)
    subprocess.run(["createdb", *args, name], check=True)
    from django.core.management import call_command
    from django.db import connections

    connections.close_all()
    call_command("migrate", verbosity=0)


def analyze(*, quiet: bool = False) -> None:
    """``ANALYZE`` the bench database once its set-up is written: this PostgreSQL server runs with autovacuum
    off, and without statistics the planner picks plans no production server would (issue 29)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    if not quiet:
        print(f"ANALYZE {connection.settings_dict['NAME']}: statistics gathered after the set-up")


@dataclass
class Verdicts:
    """The targets of one benchmark run, printed as they are checked."""

    missed: list[str] = field(default_factory=list)

    def check(self, name: str, figure: float, limit: float, *, unit: str = "", at_least: bool = False) -> bool:
        met = figure >= limit if at_least else figure <= limit
        relation = ">=" if at_least else "<="
        print(f"target {name}: {figure:.3f}{unit} ({relation} {limit:g}{unit}) {'MET' if met else 'MISSED'}")
        if not met:
            self.missed.append(name)
        return met

    def exit_code(self) -> int:
        if self.missed:
            print(f"MISSED: {', '.join(self.missed)}", file=sys.stderr)
            return 1
        print("all targets MET")
        return 0
