"""Run every automatic table's loop in one process (the Procfile's ``tables`` process).

Two or more may run (on several hosts): each table is dealt by one of them at a time, the others stand by
for it (``casino.lifecycle.table_locks``).
"""

import signal
import threading
from contextlib import closing

from django.core.management.base import BaseCommand

from casino.lifecycle.loop import start_table_threads
from casino.lifecycle.table_locks import table_locks
from kernel.database_roles import migrate_url_warn
from tables.models import Table


class Command(BaseCommand):
    help = "Run the loops of all automatic tables (one thread each)."

    def handle(self, *args, **options) -> None:
        migrate_url_warn("table loops")
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        ids = list(Table.objects.filter(dealing_mode=Table.DealingMode.AUTOMATIC).values_list("id", flat=True))
        self.stdout.write(f"Running {len(ids)} automatic table(s)")
        with closing(table_locks()) as locks:  # released at a clean stop: a standing-by loop takes them at once
            for thread in start_table_threads(table_ids=ids, stop=stop, locks=locks):
                thread.join()
