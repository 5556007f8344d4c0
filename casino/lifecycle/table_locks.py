"""Which loop deals a table: one at a time, however many ``run_tables`` processes run.

On PostgreSQL each loop process keeps one connection of its own, outside Django's pool, and holds on it a
session-level advisory lock per table it deals (``pg_try_advisory_lock``). Another process stands by: it
tries the lock every ``STANDBY_POLL`` seconds and takes the table once PostgreSQL has dropped the dead
holder's session, at once for a killed process (its socket closes), within ``KEEPALIVE_SECONDS`` for a host
that vanished (the server's TCP keepalives). Before each step the loop asks its connection: a session that
answers still holds its locks; one that does not may have lost them to another loop, which then deals, so
this one stops (no split brain) and stands by again. A step already under way when the connection fails
ends as any step does, in one transaction under the coup's row locks; the other loop's next step reads what
it left.

An advisory lock rather than a lease row: it needs no renewal writes, no clocks and no migration, and it is
released the moment its session ends instead of when a lease runs out. It needs a direct connection (or
a session-mode pooler): a transaction-mode pooler would hand the session, and its locks, to others.

SQLite: the embedded default runs one process, which deals every table.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

import psycopg
from django.db import connection

logger = logging.getLogger(__name__)

LOCK_SPACE = 0x7461_626C  # "tabl": the advisory locks' first key; the table's id is the second
STANDBY_POLL = 1.0  # seconds between a standing-by loop's tries
KEEPALIVE_SECONDS = 3  # the server drops a silent loop host's session (and its locks) after about this long
# The session's own settings: the server probes an idle loop after 1 s, every second, and gives up after 2
# probes; unanswered data is given up after KEEPALIVE_SECONDS too, on both sides.
SESSION_SETTINGS = (
    "SET tcp_keepalives_idle = 1; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 2; "
    f"SET tcp_user_timeout = {KEEPALIVE_SECONDS * 1000}"
)


class TableLocks(Protocol):
    def hold(self, *, table_id: int) -> bool:
        """Whether this process deals ``table_id`` now: the lock taken if free, or still held."""

    def close(self) -> None:
        """Release every table (the next loop's try takes them)."""


class EveryTable:
    """SQLite: the one process deals every table."""

    def hold(self, *, table_id: int) -> bool:
        return True

    def close(self) -> None:
        pass


class AdvisoryTableLocks:
    """PostgreSQL: a session-level advisory lock per table on one connection of this process, shared by its
    tables' threads (one at a time)."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._connection: psycopg.Connection | None = None
        self._held: set[int] = set()
        self._said: dict[int, str] = {}  # what the log last said of each table: said again only when it changes

    def hold(self, *, table_id: int) -> bool:
        with self._mutex:
            try:
                if table_id in self._held:
                    self._connection.execute("SELECT 1")  # the session answers: it holds its locks
                    return True
                return self._take(table_id)
            except psycopg.Error as error:
                self._lost(table_id, error)
                return False

    def close(self) -> None:
        with self._mutex:
            if self._connection is not None:
                self._connection.close()
            self._connection, self._held = None, set()

    def _take(self, table_id: int) -> bool:
        if self._connection is None:
            self._connection = _connect()
        query = "SELECT pg_try_advisory_lock(%s::integer, %s::integer)"
        if not self._connection.execute(query, [LOCK_SPACE, table_id]).fetchone()[0]:
            self._say(table_id, "standing by (another loop deals it)")
            return False
        self._held.add(table_id)
        self._say(table_id, "dealing (this loop holds its lock)")
        return True

    def _lost(self, table_id: int, error: Exception) -> None:
        """The connection failed: every lock it held may be another loop's by now."""
        for lost in sorted(self._held | {table_id}):
            self._say(lost, "no lock connection: standing by", level=logging.WARNING, why=error)
        self._held = set()
        if self._connection is not None:
            self._connection.close()
        self._connection = None

    def _say(self, table_id: int, what: str, *, level: int = logging.INFO, why: Exception | None = None) -> None:
        if self._said.get(table_id) != what:
            self._said[table_id] = what
            logger.log(level, "table %s: %s%s", table_id, what, f" ({why})" if why else "")


def _connect() -> psycopg.Connection:
    """A connection of the loop's own, with Django's settings, outside its pool, in autocommit."""
    params = connection.get_connection_params()
    session = psycopg.connect(
        **{
            **params,
            "autocommit": True,
            "application_name": "punto table loop",
            "connect_timeout": KEEPALIVE_SECONDS,
            "keepalives": 1,
            "keepalives_idle": 1,
            "keepalives_interval": 1,
            "keepalives_count": 2,
            "tcp_user_timeout": KEEPALIVE_SECONDS * 1000,
        }
    )
    try:
        session.execute(SESSION_SETTINGS)
    except psycopg.Error:
        session.close()
        raise
    return session


def table_locks() -> TableLocks:
    """The table locks of this process: advisory locks on PostgreSQL, every table on SQLite."""
    return AdvisoryTableLocks() if connection.vendor == "postgresql" else EveryTable()
