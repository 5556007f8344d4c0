"""Serve the platform with uvicorn (ASGI); ``--with-tables`` also runs the automatic tables in-process.

On the embedded default (in-memory channel layer) the table loops must live in the web
process for their live events to reach the browsers; with Redis they can run anywhere.
"""

import threading

import uvicorn
from django.core.management.base import BaseCommand, CommandParser

from casino.lifecycle.loop import start_table_threads
from casino.lifecycle.table_locks import table_locks
from kernel.sockets import WS_MAX_FRAME_BYTES
from tables.models import Table


class Command(BaseCommand):
    help = "Serve Punto over ASGI (uvicorn), optionally with the automatic tables dealing in-process."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--with-tables", action="store_true", help="run every automatic table's loop too")

    def handle(self, *args, host: str, port: int, with_tables: bool, **options) -> None:
        stop = threading.Event()
        if with_tables:
            ids = list(Table.objects.filter(dealing_mode=Table.DealingMode.AUTOMATIC).values_list("id", flat=True))
            start_table_threads(table_ids=ids, stop=stop, locks=table_locks())  # released as the process ends
        base = f"http://{host}:{port}"
        self.stdout.write(f"\nPunto is running: open {base}/  (pit-boss admin: {base}/admin/)\n")
        try:
            uvicorn.run(
                "casino.asgi:application",
                host=host,
                port=port,
                log_level="warning",
                lifespan="off",
                ws_max_size=WS_MAX_FRAME_BYTES,
            )
        finally:
            stop.set()
