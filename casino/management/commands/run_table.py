"""Run an automatic table's loop: ``manage.py run_table CODE [--coups N]``."""

import signal
import threading
from contextlib import closing

from django.core.management.base import BaseCommand, CommandError, CommandParser

from casino.lifecycle.loop import run_table
from casino.lifecycle.table_locks import table_locks
from kernel.database_roles import migrate_url_warn
from tables.models import Table


class Command(BaseCommand):
    help = (
        "Run an automatic table: betting, no more bets, deal, resolve, settle, next coup; a new shoe at the cut card."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("code", help="the table's code")
        parser.add_argument("--coups", type=int, default=None, help="stop after this many coups are resolved")

    def handle(self, *args, code: str, coups: int | None, **options) -> None:
        table = Table.objects.filter(code=code).first()
        if table is None:
            raise CommandError(f"no table with code {code!r}")
        if table.dealing_mode != Table.DealingMode.AUTOMATIC:
            raise CommandError(f"table {code} is dealt by a dealer: use the dealer console")
        if coups is not None and coups < 1:
            raise CommandError("--coups must be at least 1")
        migrate_url_warn("table loop")
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        self.stdout.write(f"Running table {code} (Ctrl-C to stop)")
        with closing(table_locks()) as locks:
            run_table(table_id=table.pk, stop=stop, locks=locks, max_coups=coups)
