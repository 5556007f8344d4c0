"""Check a provably fair shoe: ``manage.py verify_shoe --shoe ID [--json]``."""

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.models import Shoe
from tables.selectors import shoe_verify


class Command(BaseCommand):
    help = "Verify a finished RNG shoe: its SHA-256 commitment and every coup against the revealed order."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--shoe", type=int, required=True, help="the shoe's id")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, shoe: int, **options) -> None:
        found = Shoe.objects.filter(pk=shoe).first()
        if found is None:
            raise CommandError(f"no shoe with id {shoe}")
        if not found.has_card_order:
            raise CommandError(f"shoe {shoe} is a physical shoe: it has no committed order")
        if not found.revealed:
            raise CommandError(f"shoe {shoe} is {found.state}: its order and salt are revealed when it ends")
        check = shoe_verify(shoe=found)
        report = {
            "shoe": found.pk,
            "commitment": found.commitment,
            "salt": found.reveal().salt,
            "commitment_ok": check.commitment_ok,
            "coups_checked": check.coups_checked,
            "mismatches": list(check.mismatches),
            "ok": check.ok,
        }
        if options["json"]:
            self.stdout.write(json.dumps(report))
        else:
            self.stdout.write(
                f"shoe {found.pk}: commitment {'matches' if check.commitment_ok else 'DOES NOT MATCH'}; "
                f"{check.coups_checked} coups checked; {len(check.mismatches)} mismatches"
            )
            for line in check.mismatches:
                self.stdout.write(f"  {line}")
        if not check.ok:
            raise CommandError("the shoe does not verify")
