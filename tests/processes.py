"""Processes for the tests that cross process boundaries: they share the test database and Redis."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


def database_url_of_test_database() -> str:
    conf = connection.settings_dict
    return f"postgres://{conf['USER']}@{conf['HOST']}:{conf['PORT']}/{conf['NAME']}"


def subprocess_env(**extra: str) -> dict[str, str]:
    """This environment, on the test database and the test Redis (or ``REDIS_URL`` in ``extra``), without the
    owner's URL, as ``scripts/run.sh`` starts the platform's processes."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_MIGRATE_URL"}
    env.update(DATABASE_URL=database_url_of_test_database(), REDIS_URL=settings.REDIS_URL)
    return {**env, **extra}


def wait_until(predicate: Callable[[], object], *, what: str, timeout: float = 60.0) -> None:
    """Poll ``predicate`` until it holds; fail after ``timeout`` seconds (a hang, not a slow machine)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {timeout:.0f} s")
        time.sleep(0.05)


class Process:
    """A child process whose output is read line by line (stdout and stderr together)."""

    def __init__(self, args: list[str], *, env: dict[str, str]) -> None:
        self.args = args
        self.popen = subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.popen.stdout:
            self.output.append(line)
            self.lines.put(line.rstrip("\n"))

    def wait_for_line(self, text: str, *, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if text in self.lines.get(timeout=max(0.0, deadline - time.monotonic())):
                    return
            except queue.Empty:
                raise AssertionError(f"{' '.join(self.args)} never printed {text!r}:\n{self.log()}") from None

    def log(self) -> str:
        return "".join(self.output[-40:])

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind, as a crash or an OOM kill."""
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait(timeout=30)

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, then wait for it to exit."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        return self.popen.wait(timeout=timeout)


def python(*args: str, env: dict[str, str]) -> Process:
    return Process([sys.executable, *args], env=env)


def celery_worker(*, queues: str, env: dict[str, str], pool: str = "solo") -> Process:
    """A real ``celery -A casino worker`` on ``queues`` (comma-separated: settlement, webhooks, reports), one
    task at a time. The solo pool enforces no time limit; ``pool="prefork"`` does, as the Procfile's workers."""
    return python(
        "-m",
        "celery",
        "-A",
        "casino",
        "worker",
        "--queues",
        queues,
        "--pool",
        pool,
        "--concurrency",
        "1",
        "--loglevel",
        "INFO",
        "--hostname",
        f"faults-{queues.replace(',', '-')}-{os.getpid()}-{time.monotonic_ns()}@%h",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        env=env,
    )
