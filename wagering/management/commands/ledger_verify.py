"""Recompute the ledger's hourly roots from the rows: ``manage.py ledger_verify --from ISO --to ISO``."""

from __future__ import annotations

from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser

from wagering.ledger_roots_verify import ledger_roots_verify


def moment(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text!r} is not an ISO 8601 time, e.g. 2026-11-24T10:00Z") from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class Command(BaseCommand):
    help = (
        "Recompute each sealed hour's Merkle root from its ledger transactions, legs and audit rows, and check "
        "the chain of roots and the audit log's copies; name the first row that differs (exit status 1)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--from", dest="start", type=moment, help="the first hour (default: the first sealed)")
        parser.add_argument("--to", dest="end", type=moment, help="hours starting before this (default: the last)")

    def handle(self, *args, start: datetime | None, end: datetime | None, **options) -> None:
        start = start or datetime.min.replace(tzinfo=UTC)
        end = end or datetime.max.replace(tzinfo=UTC)
        if end <= start:
            raise CommandError("--to must be after --from")
        result = ledger_roots_verify(start=start, end=end)
        for problem in result.problems:
            self.stderr.write(problem)
        if result.first_row is not None:
            raise CommandError(f"first row that differs: {result.first_row.table} {result.first_row.id}")
        if not result.ok:
            raise CommandError(f"{len(result.problems)} problems in {result.hours} sealed hours")
        hours = f"{result.hours} sealed hour{'' if result.hours == 1 else 's'}"
        self.stdout.write(f"{hours} verified: every root recomputes from its rows and chains")
