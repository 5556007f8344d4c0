"""Send pending seamless-wallet transactions now: ``manage.py wallet_transactions_retry [--partner CODE]``."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from partners.models import Partner
from partners.seamless import wallet_transactions_retry


class Command(BaseCommand):
    help = "Send every pending credit, rollback and correction of the seamless wallets (of one partner) now."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--partner", help="only this partner's (its code)")

    def handle(self, *args, **options) -> None:
        partner = None
        if options["partner"]:
            partner = Partner.objects.filter(code=options["partner"]).first()
            if partner is None:
                raise CommandError(f"there is no partner {options['partner']!r}")
        sent = wallet_transactions_retry(partner=partner)
        self.stdout.write(f"{sent} pending wallet transactions sent again")
