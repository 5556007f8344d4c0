"""A tested restore (issue 33, docs/deployment.md "Backups"): the bed's PostgreSQL archives its WAL
(``archive_command`` into ``ARCHIVE``), a base backup is taken with ``pg_basebackup`` before play starts, and once
play has ended the backup is restored into a fresh cluster on the db host with every archived WAL segment
replayed (point-in-time recovery to the archive's end). The restored books must pass ``ledger_check`` and
``settlement_check`` and hold exactly what the live cluster holds: the same coups, bets, settlements, ledger
transactions and entries, and the same balance on every account.

``python -m bench.cluster.restore --books`` prints the books' fingerprint of the database ``DATABASE_URL`` names
(the bed runs it against each cluster).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

from bench.cluster.hosts import DATABASE, PG_MAX_CONNECTIONS, PG_PORT, Process
from bench.cluster.network import HOSTS, WORK, postgres_bin
from bench.common import ROOT

ARCHIVE = WORK / "wal-archive"
BASE = WORK / "base-backup"
RESTORED = WORK / "restored"
RESTORED_PORT = 5433


def archive_settings() -> dict[str, str]:
    """What ``postgres_init`` adds so that every WAL segment is archived (the archive made here)."""
    ARCHIVE.mkdir(parents=True, exist_ok=True)
    shutil.chown(ARCHIVE, "postgres", "postgres")
    return {"wal_level": "replica", "archive_mode": "on", "archive_command": f"'cp %p {ARCHIVE}/%f'"}


def base_backup() -> float:
    """A base backup of the running cluster (its WAL streamed with it); the seconds it took."""
    started = time.monotonic()
    BASE.mkdir(parents=True)
    shutil.chown(BASE, "postgres", "postgres")
    _as_postgres(
        str(postgres_bin() / "pg_basebackup"),
        *("-h", HOSTS["db"], "-p", str(PG_PORT), "-U", "postgres", "-D", str(BASE), "-X", "stream", "-c", "fast"),
    )
    return time.monotonic() - started


def restore_problems() -> list[str]:
    """The backup restored with every archived segment replayed, its books checked and compared with the live
    cluster's (nothing may write to it any more). The problems found, none when the restore is exact."""
    live_url = f"postgres://punto_app@{HOSTS['db']}:{PG_PORT}/{DATABASE}"
    _psql(PG_PORT, "SELECT pg_switch_wal()")  # the last writes into a segment of their own, archived
    segment = _psql(PG_PORT, "SELECT pg_walfile_name(pg_current_wal_lsn() - 1)")
    started = time.monotonic()
    nudged = started
    while _psql(PG_PORT, "SELECT coalesce(last_archived_wal, '') FROM pg_stat_archiver") < segment:
        if time.monotonic() - started > 60:
            archiver = _psql(
                PG_PORT, "SELECT concat_ws(' ', last_archived_wal, failed_count, last_failed_wal) FROM pg_stat_archiver"
            )
            return [f"restore: WAL segment {segment} not archived within 60 s (last, failures, failed: {archiver})"]
        if time.monotonic() - nudged > 5:  # seen once: the segment not handed to the archiver; a later switch does
            _psql(PG_PORT, "SELECT pg_switch_wal()")
            nudged = time.monotonic()
        time.sleep(0.2)
    live = books_fingerprint(live_url)
    shutil.copytree(BASE, RESTORED)
    (RESTORED / "recovery.signal").touch()
    with (RESTORED / "postgresql.auto.conf").open("a") as settings:
        settings.write(f"restore_command = 'cp {ARCHIVE}/%f %p'\n")
    subprocess.run(["chown", "-R", "postgres:postgres", str(RESTORED)], check=True)
    RESTORED.chmod(0o700)  # PostgreSQL refuses a data directory others may read
    options = (
        f"-c listen_addresses={HOSTS['db']} -c port={RESTORED_PORT} -c unix_socket_directories={RESTORED} "
        f"-c archive_mode=off -c max_connections={PG_MAX_CONNECTIONS}"
    )
    command = f"exec {postgres_bin() / 'postgres'} -D {RESTORED} {options}"
    restored = Process("db", command, {"PATH": os.environ["PATH"]}, user="postgres", name="postgres-restored").start()
    try:
        replayed = _until_promoted()
        if replayed is None:
            return ["restore: the restored cluster did not finish recovery within 120 s (see postgres-restored.log)"]
        copy = books_fingerprint(f"postgres://punto_app@{HOSTS['db']}:{RESTORED_PORT}/{DATABASE}")
    finally:
        restored.stop(timeout=20)
    segments = len(list(ARCHIVE.iterdir()))
    print(
        f"[restore] base backup + {segments} archived WAL segments replayed into a fresh cluster in {replayed:.1f} s: "
        f"{copy['ledger_transactions']} ledger transactions, {copy['bets']} bets, coups {copy['coups']}"
    )
    problems = [f"restore: {problem}" for problem in copy.pop("problems")]
    live.pop("problems")
    problems += [
        f"restore: {key} differ: live {live[key]!r}, restored {copy[key]!r}" for key in live if live[key] != copy[key]
    ]
    return problems


def books_fingerprint(url: str) -> dict:
    """The fingerprint of the books at ``url`` (this module run with ``--books`` against it)."""
    answer = subprocess.run(
        [sys.executable, "-m", "bench.cluster.restore", "--books"],
        cwd=ROOT,
        env={**_environment(), "DATABASE_URL": url},
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(answer.stdout)


def _environment() -> dict[str, str]:
    return {**os.environ, "DATABASE_POOL_MAX_SIZE": "0", "CONN_MAX_AGE": "0"}


def _until_promoted(timeout: float = 120.0) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            if _psql(RESTORED_PORT, "SELECT pg_is_in_recovery()") == "f":
                return time.monotonic() - started
        except subprocess.CalledProcessError:
            pass  # still starting
        time.sleep(0.5)
    return None


def _psql(port: int, sql: str) -> str:
    answer = subprocess.run(
        ["psql", "-h", HOSTS["db"], "-p", str(port), "-U", "postgres", "-d", DATABASE, "-AtX", "-c", sql],
        check=True,
        capture_output=True,
        text=True,
    )
    return answer.stdout.strip()


def _as_postgres(*command: str) -> None:
    done = subprocess.run(["runuser", "-u", "postgres", "--", *command], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{command[0]} failed: {done.stderr.strip()}")


def _books() -> dict:
    import django

    django.setup()
    from django.db.models import Count, Sum

    from tables.models import Coup
    from wagering.checks import ledger_check, settlement_check
    from wagering.models import Account, Bet, BetSettlement, LedgerTransaction

    settlement, ledger = settlement_check(), ledger_check()
    balances = Account.objects.order_by("pk").values_list("pk", "balance")
    return {
        "coups": dict(Coup.objects.values_list("state").annotate(n=Count("pk")).order_by("state")),
        "bets": Bet.objects.count(),
        "settlements": BetSettlement.objects.count(),
        "returned": str(BetSettlement.objects.aggregate(total=Sum("returned"))["total"]),
        "ledger_transactions": LedgerTransaction.objects.count(),
        "ledger_entries": ledger.entries,
        "balances": [[pk, str(balance)] for pk, balance in balances],
        "problems": settlement.problems + ledger.problems,
    }


if __name__ == "__main__" and sys.argv[1:] == ["--books"]:
    sys.path.insert(0, str(ROOT))
    print(json.dumps(_books()))
