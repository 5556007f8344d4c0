"""Benchmark bet placement over HTTP: ``flock /tmp/punto-bench.lock .venv/bin/python bench/placement.py
[--seconds 30] [--paths ui,partner] [--pin none|split]``.

Needs PostgreSQL and Redis (``bench/common.py``), ``pgbench`` and ``wrk`` (``apt-get install -y wrk``:
installed here when run as root). On its own database it opens several tables, each with a coup
taking bets for the whole run, funds 64 signed-in UI players (``POST /tables/<code>/bets/``, session
cookie and CSRF token) and 64 of a partner's (``POST /api/v1/players/<id>/bets/``, Bearer key and
Idempotency-Key), and runs ``ANALYZE``. It measures ``pgbench -N`` on the same server for scale, starts
the web process exactly as the ``Procfile`` does, then for each path drives 64 clients (one wrk thread
each) for 30 s: the CPU per placement of the web processes, the bench database's own PostgreSQL
backends, Redis and wrk (``load_harness.CpuMeter``). Then the ledger is checked. For scale it also prints
what the same server answers with no work at all (``GET /healthz``) and what the database alone does with
a placement's statements (pgbench).

Targets (issue 29), exits 1 on a miss: UI path <= 2.0 ms of web CPU and <= 1.2 ms of PostgreSQL CPU a
placement, >= 600 placements/s with p99 <= 150 ms at 64 clients; partner API <= 2.5 ms of web CPU a
placement; no error but limit refusals; every ledger check balanced. When a target is out of reach the
ceilings that stop it are printed (what the CPU a placement takes allows on this machine's cores).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import POSTGRES_SERVER, Verdicts, analyze, bench_database_reset, django_setup
from bench.load_harness import (
    PINS,
    SERVER_ENV,
    CpuMeter,
    cpu_per_operation,
    ledger_problems,
    pgbench_run,
    pgbench_tps,
    pin_cores,
    pinned,
    server_pids,
    signed_in_session_key,
    web_server,
)

NAME, REDIS_DB = "punto_bench_placement", 5
TABLES, CLIENTS, SECONDS, WARM_UP_SECONDS, CEILING_SECONDS = 8, 64, 30, 3, 10
STAKE, FUNDS, LIMIT = "1.00", "1000000.00", "100000.00"
TARGET_RATE, TARGET_P99_MS = 600.0, 150.0
# Milliseconds of CPU a placement (issue 29): (web, PostgreSQL's own backends), None where there is none.
TARGET_CPU_MS = {"ui": (2.0, 1.2), "partner": (2.5, None)}
# Refusals by a limit are the one error allowed: the player asked for more than the table takes.
LIMIT_CODES = frozenset({"below_minimum", "above_maximum", "table_maximum", "max_differential", "insufficient_funds"})


def wrk_installed() -> str:
    """wrk's path, installing Debian's package first when missing and run as root."""
    if shutil.which("wrk") is None and os.getuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True, env=env, stdout=subprocess.DEVNULL)
    path = shutil.which("wrk")
    if path is None:
        sys.exit("wrk is missing: install Debian's wrk package (apt-get install -y wrk)")
    return path


# --- Data ----------------------------------------------------------------------------------------


def tables_with_open_coups() -> list:
    """Open tables, each with a coup whose betting window outlasts the run (no table loop runs)."""
    from django.conf import settings

    from tables.coups import coup_open
    from tables.limit_sets import bet_limit_set, limit_set_update
    from tables.services import table_create, table_open
    from tables.shoes import shoe_prepare, shoe_start

    coups = []
    for number in range(1, TABLES + 1):
        table = table_create(code=f"bench{number}", name=f"Bench {number}", betting_seconds=3600)
        limit_set_update(table=table, actor=None, currency=settings.HOUSE_CURRENCY, max_differential=LIMIT)
        for bet_type in ("player", "banker"):
            bet_limit_set(table=table, actor=None, bet_type=bet_type, minimum="1", maximum=LIMIT)
        table_open(table=table)
        shoe_start(shoe=shoe_prepare(table=table))
        coups.append(coup_open(table=table))
    return coups


def partner_clients(coups: list, count: int) -> list[str]:
    """Partner players placing through the partner API: one clients-file line each."""
    from partners import services as partner_services

    partner = partner_services.partner_create(code="bench", name="Bench")
    key = partner_services.partner_api_key_create(partner=partner, name="bench").key
    lines = []
    for number in range(count):
        player, _ = partner_services.partner_player_create(partner=partner, external_id=f"p-{number}")
        partner_services.partner_wallet_deposit(
            partner=partner, player=player, amount=FUNDS, idempotency_key=uuid.uuid4().hex
        )
        coup = coups[number % len(coups)]
        body = {"table": coup.table.code, "bets": {_side(number): STAKE}}
        lines.append(_line("partner", f"/api/v1/players/p-{number}/bets/", body, {"Authorization": f"Bearer {key}"}))
    return lines


def ui_clients(coups: list, count: int) -> list[str]:
    """Signed-in players placing through the table page's endpoint: session cookie and CSRF token."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.utils.crypto import get_random_string

    from wagering.wallets import wallet_deposit

    lines = []
    for number in range(count):
        user = get_user_model().objects.create_user(username=f"ui-{number}", password=uuid.uuid4().hex)
        wallet_deposit(user=user, amount=FUNDS, idempotency_key=uuid.uuid4().hex, reason="bench")
        csrf = get_random_string(32)
        cookie = f"{settings.SESSION_COOKIE_NAME}={signed_in_session_key(user)}; {settings.CSRF_COOKIE_NAME}={csrf}"
        coup = coups[number % len(coups)]
        body = {"bets": {_side(number + 1): STAKE}, "round_id": coup.round_id}
        header = settings.CSRF_HEADER_NAME.removeprefix("HTTP_").replace("_", "-")
        lines.append(_line("ui", f"/tables/{coup.table.code}/bets/", body, {"Cookie": cookie, header: csrf}))
    return lines


def _side(number: int) -> str:
    """Player or Banker, alternately, so each table's totals stay close (the maximum differential)."""
    return ("player", "banker")[(number // TABLES) % 2]


def _line(kind: str, path: str, body: dict, headers: dict[str, str]) -> str:
    return "\t".join([kind, path, json.dumps(body), *(f"{name}: {value}" for name, value in headers.items())])


# --- The load (wrk) and the database alone (pgbench) ---------------------------------------------


def wrk_run(wrk: list[str], url: str, clients_file: Path, *, seconds: int, tag: str) -> dict:
    """wrk's summary of the run (``bench/placement.lua``), with ``cpu``: the seconds of CPU wrk used."""
    script = Path(__file__).with_suffix(".lua")
    options = ["-t", str(CLIENTS), "-c", str(CLIENTS), "-d", f"{seconds}s", "--timeout", "10s", "-s", str(script)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(
        [*wrk, *options, url, "--", str(clients_file), tag],
        check=True,
        capture_output=True,
        text=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = next(line for line in run.stdout.splitlines() if line.startswith("RESULT "))
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {**json.loads(line.removeprefix("RESULT ")), "cpu": cpu}


def wrk_requests_per_second(wrk: list[str], url: str, *, seconds: int) -> float:
    """Plain GETs of ``url`` by the same 64 clients: what the web stack answers when there is no work."""
    options = ["-t", str(CLIENTS), "-c", str(CLIENTS), "-d", f"{seconds}s", "--timeout", "10s"]
    run = subprocess.run([*wrk, *options, url], check=True, capture_output=True, text=True)
    return float(re.search(r"Requests/sec:\s+([\d.]+)", run.stdout).group(1))


# The marker and the coup's lock as the service reads them (the ORM's SQL, written out for pgbench).
LOCK_SQL = """
SELECT state, no_bet, betting_closes_at FROM tables_coup WHERE id = :coup FOR UPDATE;
"""


def database_only_tps(*, seconds: int) -> float:
    """A placement's own statements (the lock, ``placement_standing``'s statement and ``PLACEMENT_SQL``) run
    by pgbench alone, 64 clients on the bench's players and coups: what the database could do for placements
    if the web tier cost nothing. One Tie bet of 1.00 each."""
    from django.conf import settings
    from django.db import connection

    from wagering.placement_standing import standing_sql
    from wagering.placement_writers import PLACEMENT_SQL, sql_with_tables

    with connection.cursor() as cursor:
        cursor.execute("SELECT min(user_id), max(user_id), count(*) FROM wagering_account WHERE kind = 'player'")
        first_user, last_user, users = cursor.fetchone()
        cursor.execute("SELECT min(id), count(*), min(table_id) - min(id) FROM tables_coup")
        first_coup, coups, table_offset = cursor.fetchone()
    connection.close()
    assert last_user - first_user + 1 == users, "the bench's players have consecutive ids"
    values = {
        "total": "1.00",
        "currency": f"'{settings.HOUSE_CURRENCY}'",
        "largest_return": "9.00",
        "max_balance": "999999999999.99",
        "user": ":user",
        "username": "'bench'",
        "table": ":table",
        "shard": "0",  # the bench's coups are a table's, not private: ledger_shard's 0
        "coup": ":coup",
        "now": "now()",
        "bet_types": "ARRAY['tie']",
        "stakes": "ARRAY[1.00]",
        "joined": "ARRAY[]::varchar[]",
        "action": "'bet_batch_placed'",
        "audit": "'{}'",
        "wallet_kind": "'player'",
        "in_play_kind": "'bets_in_play'",
        "placement_kind": "'bet_placement'",
        "accepted": "'accepted'",
        "house": f"'{settings.HOUSE_CURRENCY}'",
        "player": "'player'",
        "at": "now()",
        "object_type": "'BetBatch'",
    }
    script = "\n".join(
        [
            f"\\set user random({first_user}, {last_user})",
            f"\\set coup {first_coup} + (:user % {coups})",
            f"\\set table :coup + {table_offset}",
            "BEGIN;",
            LOCK_SQL.strip(),
            " ".join((standing_sql() % values).split()) + ";",
            " ".join((sql_with_tables(PLACEMENT_SQL) % values).split()) + ";",
            "COMMIT;",
        ]
    )
    with tempfile.NamedTemporaryFile("w", suffix=".pgbench") as file:
        file.write(script + "\n")
        file.flush()
        database = settings.DATABASES["default"]["NAME"]
        return pgbench_run("-n", "-f", file.name, database=database, seconds=seconds, clients=CLIENTS)


# --- The run -------------------------------------------------------------------------------------


def path_run(wrk: list[str], url: str, clients_file: Path, server_pid: int, *, path: str, seconds: int) -> dict:
    """One path's load: a warm-up, then ``seconds`` measured, with the CPU each component used."""
    warm_up = wrk_run(wrk, url, clients_file, seconds=WARM_UP_SECONDS, tag=f"warm-{path}")
    meter = CpuMeter(web=server_pids(server_pid))
    meter.start()
    result = wrk_run(wrk, url, clients_file, seconds=seconds, tag=f"run-{path}")
    used = {**meter.stop(), "client": result["cpu"]}
    return {**result, "used": used, "warm_up_placed": _placed(warm_up["statuses"])}


def _placed(statuses: dict) -> int:
    return sum(count for key, count in statuses.items() if key in ("200", "201"))


def path_report(path: str, result: dict, tps: float, verdicts: Verdicts) -> int:
    """Print one path's figures, ceilings and verdicts; the placements answered."""
    statuses = result["statuses"]
    elapsed = result["duration_us"] / 1e6
    placed = _placed(statuses)
    refused = {key: count for key, count in statuses.items() if key.split(":")[-1] in LIMIT_CODES}
    errors = {key: count for key, count in statuses.items() if key not in ("200", "201") and key not in refused}
    errors.update({f"socket {kind}": count for kind, count in result["socket_errors"].items() if count})
    rate = placed / elapsed
    print(f"--- {path}: {placed} placements in {elapsed:.1f} s = {rate:.1f}/s ({rate / tps:.3f} of pgbench's TPS)")
    print(
        f"latency: p50 {result['p50_us'] / 1e3:.1f} ms, p99 {result['p99_us'] / 1e3:.1f} ms, "
        f"max {result['max_us'] / 1e3:.1f} ms; limit refusals: {refused or 'none'}; errors: {errors or 'none'}"
    )
    per = cpu_per_operation(result["used"], placed, what=f"{path} placement")
    cores = os.cpu_count()
    for part, milliseconds in (("in all", per["in all"]), ("PostgreSQL's own backends alone", per["PostgreSQL"])):
        if milliseconds:
            print(
                f"ceiling: at {milliseconds:.2f} ms of CPU a placement ({part}) {cores} cores carry at most "
                f"{cores * 1e3 / milliseconds:.0f} placements/s"
            )
    print(
        f"Little's law: {CLIENTS} clients each waiting for their answer at {rate:.0f}/s wait "
        f"{CLIENTS / max(rate, 1e-9) * 1e3:.0f} ms on average; an average of {TARGET_P99_MS:g} ms takes "
        f"{CLIENTS / TARGET_P99_MS * 1e3:.0f} placements/s"
    )
    web_limit, database_limit = TARGET_CPU_MS[path]
    verdicts.check(f"{path}: web CPU per placement", per["web"], web_limit, unit=" ms")
    if database_limit is not None:
        verdicts.check(f"{path}: PostgreSQL CPU per placement", per["PostgreSQL"], database_limit, unit=" ms")
    if path == "ui":
        verdicts.check(f"{path}: placements/s at {CLIENTS} clients", rate, TARGET_RATE, at_least=True)
        verdicts.check(f"{path}: p99 latency at {CLIENTS} clients", result["p99_us"] / 1e3, TARGET_P99_MS, unit=" ms")
    verdicts.check(f"{path}: errors other than limit refusals", sum(errors.values()), 0)
    return placed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=SECONDS, help="of pgbench and of each load (the target: 30)")
    parser.add_argument("--paths", default="ui,partner", help="the paths loaded, one after the other: ui, partner")
    parser.add_argument("--pin", choices=PINS, default="none", help="none (default) or split: see bench/README.md")
    options = parser.parse_args()
    seconds, paths = options.seconds, [path for path in options.paths.split(",") if path]
    unknown = set(paths) - set(TARGET_CPU_MS)
    if unknown:
        parser.error(f"unknown paths: {', '.join(sorted(unknown))}")
    server_cores, client_cores = pin_cores(options.pin)
    wrk = [*pinned(client_cores), wrk_installed()]
    django_setup(real=True, name=NAME, redis_db=REDIS_DB)
    from django.conf import settings
    from django.db import connections

    from wagering.models import BetBatch

    bench_database_reset()
    coups = tables_with_open_coups()
    lines = {"partner": partner_clients(coups, CLIENTS), "ui": ui_clients(coups, CLIENTS)}
    analyze()
    connections.close_all()
    print(f"{TABLES} tables, {CLIENTS} clients a path ({', '.join(paths)}), {seconds} s each")

    tps = pgbench_tps(seconds=seconds, clients=CLIENTS)
    print(f"pgbench -N -c {CLIENTS} -j 2 -T {seconds}: {tps:.1f} TPS")

    database = settings.DATABASES["default"]
    SERVER_ENV["DATABASE_URL"] = f"{POSTGRES_SERVER}/{database['NAME']}"
    SERVER_ENV["REDIS_URL"] = settings.REDIS_URL
    results = {}
    with tempfile.TemporaryDirectory(prefix="punto-bench-placement-") as scratch:
        log = Path(tempfile.gettempdir()) / "punto-bench-placement-server.log"
        with web_server(log, cores=server_cores) as (url, server_pid):
            for path in paths:
                clients_file = Path(scratch) / f"{path}.tsv"
                clients_file.write_text("\n".join(lines[path]) + "\n")
                results[path] = path_run(wrk, url, clients_file, server_pid, path=path, seconds=seconds)
            ceiling = wrk_requests_per_second(wrk, f"{url}/healthz", seconds=CEILING_SECONDS)

    verdicts = Verdicts()
    answered = sum(
        path_report(path, result, tps, verdicts) + result["warm_up_placed"] for path, result in results.items()
    )
    print(
        f"the web stack's ceiling, GET /healthz (one SELECT 1) on the same server: {ceiling:.0f} requests/s "
        f"({ceiling / tps:.3f} of pgbench's TPS)"
    )
    batches = BetBatch.objects.count()
    problems = ledger_problems()
    in_flight = 2 * CLIENTS * len(paths)  # wrk stops with requests in flight, still placed
    if not answered <= batches <= answered + in_flight:
        problems.append(f"{batches} batches stored but {answered} placements answered")
    print(f"ledger checks: {'; '.join(problems) or 'all balanced'}")
    # After the checks: these placements bypass the web tier (and its count of answers).
    database_tps = database_only_tps(seconds=CEILING_SECONDS)
    print(
        f"the database alone, a placement's statements through pgbench ({CLIENTS} clients): {database_tps:.0f} TPS "
        f"({database_tps / tps:.3f} of pgbench's TPS)"
    )
    verdicts.check("ledger problems", len(problems), 0)
    return verdicts.exit_code()


if __name__ == "__main__":
    sys.exit(main())
