"""``bench/intake.py``'s mini-runs in its own process: how long the coup's lock is held per bet, and whether a
bet costs more as its coup fills (issue 29).

Two tables of their own have their coups pre-loaded set-wise with bets, one with 1,000 and one with 30,000
(``bench.settlement``'s players and placements, the coups' running totals written to match), ``ANALYZE``d.
Then runs of the socket players' bet requests go through the intake itself (``bet_request_submit``: this
process's group commit thread, batches as the web processes make them), on one coup then the other in turn
(so a neighbour's load falls on both alike; the least of each coup's runs is kept), timed: the CPU of this
process and of its PostgreSQL backend per bet, and the time from the statement that locks the coup's row
(``tables_coup`` ``FOR UPDATE``) to the end of the commit, by patching Django's cursor and commit in this
process only.
"""

from __future__ import annotations

import threading
import time
import uuid
from contextlib import contextmanager

MINI_RUN_BETS = 1_000  # the users take turns


class LockClock:
    """The seconds the coup's row lock is held, from the statement taking it to the commit's (or the
    rollback's) end, per thread; and the batches that took it."""

    def __init__(self) -> None:
        self.held = 0.0
        self.batches = 0
        self.taken = threading.local()

    @contextmanager
    def watching(self):
        from django.db.backends.base.base import BaseDatabaseWrapper
        from django.db.backends.utils import CursorWrapper

        execute, commit, rollback = CursorWrapper._execute, BaseDatabaseWrapper.commit, BaseDatabaseWrapper.rollback
        clock = self

        def timed_execute(cursor, sql, params, *args):
            if getattr(clock.taken, "at", None) is None and _locks_coup(sql):
                clock.taken.at = time.perf_counter()
            return execute(cursor, sql, params, *args)

        def ended(original):
            def end(connection):
                try:
                    return original(connection)
                finally:
                    at = getattr(clock.taken, "at", None)
                    if at is not None:
                        clock.held += time.perf_counter() - at
                        clock.batches += 1
                        clock.taken.at = None

            return end

        CursorWrapper._execute = timed_execute
        BaseDatabaseWrapper.commit, BaseDatabaseWrapper.rollback = ended(commit), ended(rollback)
        try:
            yield self
        finally:
            CursorWrapper._execute = execute
            BaseDatabaseWrapper.commit, BaseDatabaseWrapper.rollback = commit, rollback


def _locks_coup(sql: str) -> bool:
    """Whether the statement takes the coup's row lock: a ``FOR [NO KEY] UPDATE`` or an ``UPDATE`` of it."""
    return "tables_coup" in sql and ("FOR UPDATE" in sql or "FOR NO KEY UPDATE" in sql or sql.lstrip()[:6] == "UPDATE")


def table_with_open_coup(*, code: str, name: str, side_bets: list[str], max_differential: str):
    """A table whose coup takes bets for the whole run, with limits that a thousand players stay within."""
    from django.conf import settings

    from tables.coups import coup_open
    from tables.limit_sets import bet_limit_set, limit_set_update
    from tables.services import table_create, table_open
    from tables.shoes import shoe_prepare, shoe_start

    table = table_create(code=code, name=name, betting_seconds=3600, side_bets=side_bets)
    limit_set_update(table=table, actor=None, currency=settings.HOUSE_CURRENCY, max_differential=max_differential)
    for bet_type in ("player", "banker"):
        bet_limit_set(table=table, actor=None, bet_type=bet_type, minimum="1", maximum="1000", table_maximum=None)
    table_open(table=table)
    shoe_start(shoe=shoe_prepare(table=table))
    return coup_open(table=table)


def fill_table(code: str):
    """A table with side bets (the pre-loaded bets have them) and a coup taking bets for the whole run."""
    return table_with_open_coup(
        code=code, name=f"Fill {code}", side_bets=["player_pair", "banker_pair"], max_differential="100000000"
    )


def preload(coup, *, bets: int, first: int) -> None:
    """``bets`` more bets on ``coup`` (two a new player: a main bet and a side bet), set-wise, its running
    totals rewritten from its bets, then ``ANALYZE``."""
    from django.db import connection

    from bench.common import analyze
    from bench.settlement import bets_place, players_create

    user_ids = players_create(bets // 2, first=first)
    for start in range(0, len(user_ids), 5_000):
        bets_place(coup, user_ids[start : start + 5_000])
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO wagering_coupstaketotal (coup_id, bet_type, currency, total, bettors)
            SELECT bet.coup_id, bet.bet_type, account.currency, sum(bet.stake), count(DISTINCT bet.user_id)
            FROM wagering_bet bet JOIN wagering_account account ON account.id = bet.stake_account_id
            WHERE bet.coup_id = %s AND bet.state = 'accepted' GROUP BY 1, 2, 3
            ON CONFLICT (coup_id, bet_type, currency) DO UPDATE SET total = EXCLUDED.total, bettors = EXCLUDED.bettors
            """,
            [coup.pk],
        )
    analyze()


def mini_run(coup, users: list, clock: LockClock, *, bets: int = MINI_RUN_BETS) -> dict:
    """``bets`` bets of 1.00 through the intake, the users taking turns, submitted at once: the CPU per bet of
    this process and of its PostgreSQL backends, the lock held per bet, the batches."""
    from bench.load_harness import CpuMeter
    from casino.players.intake import IntakeRequest, bet_request_submit

    meter = CpuMeter(web=[], quiet=True)
    meter.start()
    held, batches, cpu = clock.held, clock.batches, time.process_time()
    futures = [
        bet_request_submit(
            IntakeRequest(
                user=users[index % len(users)],
                table_code=coup.table.code,
                kind="bet",
                round_id=coup.round_id,
                bets={("player", "banker")[index % 2]: "1.00"},
                request_id=str(uuid.uuid4()),
            )
        )
        for index in range(bets)
    ]
    refused = sum(1 for future in futures if future.exception(timeout=120) is not None)
    python = time.process_time() - cpu
    used = meter.stop()
    accepted = max(bets - refused, 1)
    return {
        "accepted": bets - refused,
        "refused": refused,
        "batches": clock.batches - batches,
        "python_ms": python / accepted * 1e3,
        "database_ms": used["PostgreSQL"] / accepted * 1e3,
        "lock_ms": (clock.held - held) / accepted * 1e3,
    }
