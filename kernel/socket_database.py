"""The sockets' database work: a connect's session, user and snapshot, a message's read or bet submission.

Channels' ``database_sync_to_async`` runs every call of every socket of a process in one thread, one after the
other; a call waits for each of its statements' round trips to the database, and the thread waits with it. When a
web host is taken out and its 500 players reconnect to the other at once, their connects queued there: 45 a
second, each 7 to 10 round trips, a reconnect's p99 over 10 s while the process's CPU was not spent (a py-spy
profile of the bed's web host, ``bench/cluster``). Here they run in a pool of threads of the process
(``SOCKET_DATABASE_THREADS``), so one call's waits overlap another's; each thread takes a pooled database
connection for the call and gives it back after (stale connections closed, as channels' helper does). A socket's
own calls still come one after the other: its consumer awaits each.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from channels.db import DatabaseSyncToAsync
from django.conf import settings

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _threads() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=settings.SOCKET_DATABASE_THREADS, thread_name_prefix="socket-db")
        return _executor


def socket_database(func: Callable) -> Callable:
    """``func`` made awaitable from a socket: run in one of the sockets' database threads."""
    return DatabaseSyncToAsync(func, thread_sensitive=False, executor=_threads())
