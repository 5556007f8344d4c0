"""Serve the platform with uvicorn (ASGI); ``--with-tables`` also runs the automatic tables in-process.

On the embedded default (in-memory channel layer) the table loops must live in the web
process for their live events to reach the browsers; with Redis they can run anywhere.
``--demo-video`` (scripts/run.sh) gives the demo's dealer tables a live test stream for as long as the server
runs (``casino.management.demo_video``): development only, nothing in a deployment.
"""

import signal
import threading

import uvicorn
from django.core.management.base import BaseCommand, CommandParser

from casino.lifecycle.loop import start_table_threads
from casino.lifecycle.table_locks import table_locks
from casino.management.commands.demo_data import DEMO_VIDEO_TABLES
from casino.management.demo_video import demo_video_start
from kernel.sockets import WS_MAX_FRAME_BYTES
from tables.models import Table


class Command(BaseCommand):
    help = "Serve Punto over ASGI (uvicorn), optionally with the automatic tables dealing in-process."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--with-tables", action="store_true", help="run every automatic table's loop too")
        parser.add_argument(
            "--demo-video",
            action="store_true",
            help="a live ffmpeg test stream for each demo dealer table while serving (development; needs ffmpeg)",
        )

    def handle(self, *args, host: str, port: int, with_tables: bool, demo_video: bool, **options) -> None:
        # SIGTERM: uvicorn stops serving, then hands the signal on to this handler: the finally below runs (the
        # default action would end the process there and then, leaving the tables' threads and the encoders).
        signal.signal(signal.SIGTERM, _exit)
        stop = threading.Event()
        video = demo_video_start(codes=DEMO_VIDEO_TABLES, say=self.stdout.write) if demo_video else None
        try:
            if with_tables:
                ids = list(Table.objects.filter(dealing_mode=Table.DealingMode.AUTOMATIC).values_list("id", flat=True))
                start_table_threads(table_ids=ids, stop=stop, locks=table_locks())  # released as the process ends
            base = f"http://{host}:{port}"
            self.stdout.write(f"\nPunto is running: open {base}/  (pit-boss admin: {base}/admin/)\n")
            uvicorn.run(
                "casino.asgi:application",
                host=host,
                port=port,
                log_level="warning",
                lifespan="on",  # the collector tuned at the start (kernel.collector)
                ws_max_size=WS_MAX_FRAME_BYTES,
            )
        finally:
            stop.set()
            if video is not None:
                video.stop()


def _exit(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
