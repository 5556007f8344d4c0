"""A table's loop in a process of its own, with fast timings, that can stop dead at a chosen point. It logs
each step it takes (``table N: what it did``) and when it deals or stands by (``casino.lifecycle.table_locks``).

``python -m tests.faults.loop_process CODE [--pause EVENT[:N]] [--after-commit]``

``--pause``: at the N-th (default first) live event ``EVENT`` the table services send (``betting_open``,
``no_more_bets``, ``card``, ``result``), print ``paused`` and wait to be killed: inside the event's
transaction, or with ``--after-commit`` once it has committed but before the on-commit actions that
follow the event (after ``result``: the settlement task is not yet sent).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import threading
from datetime import timedelta

PAUSED = "paused"
CARD_INTERVAL, RESULT_PAUSE = 0.05, 0.2  # seconds: the loop's own


def pause_at(event: str, nth: int, *, after_commit: bool) -> None:
    from django.db import transaction

    from tables import coups, holds, services, shoes

    send, seen = services.table_event_send, []

    def table_event_send(*, table_code: str, event_type: str, data: dict) -> None:
        send(table_code=table_code, event_type=event_type, data=data)
        if event_type == event:
            seen.append(event_type)
            if len(seen) == nth and after_commit:
                transaction.on_commit(wait_to_be_killed)
            elif len(seen) == nth:
                wait_to_be_killed()

    for module in (services, coups, shoes, holds):  # every floor module that sends the table's events
        module.table_event_send = table_event_send


def wait_to_be_killed() -> None:
    print(PAUSED, flush=True)
    threading.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("code")
    parser.add_argument("--pause", default=None)
    parser.add_argument("--after-commit", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    import django

    django.setup()
    from casino.lifecycle import loop
    from casino.lifecycle.table_locks import table_locks
    from tables.models import Table

    loop.CARD_INTERVAL, loop.RESULT_PAUSE = CARD_INTERVAL, RESULT_PAUSE
    loop.SETTLEMENT_RETRY_AFTER = timedelta(seconds=1)
    logging.getLogger(loop.__name__).setLevel(logging.DEBUG)
    if args.pause:
        event, _, nth = args.pause.partition(":")
        pause_at(event, int(nth or 1), after_commit=args.after_commit)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print("running", flush=True)
    loop.run_table(table_id=Table.objects.get(code=args.code).pk, stop=stop, locks=table_locks())


if __name__ == "__main__":
    main()
