"""Run every open automatic table's loop in one process (the Procfile's ``tables`` process)."""

import signal
import threading

from django.core.management.base import BaseCommand

from casino.lifecycle.loop import start_table_threads
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
        threads = start_table_threads(table_ids=ids, stop=stop)
        for thread in threads:
            thread.join()
