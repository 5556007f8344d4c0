"""A partner's wallet: ``manage.py partner_wallet_set <partner_code> --mode seamless --wallet-url URL
--wallet-secret SECRET --currency EUR`` (or ``--mode transfer``). Prints nothing secret back."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from partners.identifiers import PartnerRejected
from partners.models import Partner
from partners.wallet_settings import MODES, partner_wallet_set


class Command(BaseCommand):
    help = "Set a partner's wallet mode (transfer or seamless), its seamless wallet's URL and secret, its currency."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("partner_code", help="the partner's code")
        parser.add_argument("--mode", required=True, choices=MODES)
        parser.add_argument("--wallet-url", help="seamless: the wallet API's base URL (https)")
        parser.add_argument("--wallet-secret", help="seamless: the HMAC-SHA256 secret signing our calls")
        parser.add_argument("--currency", help="ISO 4217, two decimal places (e.g. EUR)")

    def handle(self, *args, **options) -> None:
        partner = Partner.objects.filter(code=options["partner_code"]).first()
        if partner is None:
            raise CommandError(f"there is no partner {options['partner_code']!r}")
        try:
            partner = partner_wallet_set(
                partner=partner,
                mode=options["mode"],
                wallet_url=options["wallet_url"],
                wallet_secret=options["wallet_secret"],
                currency=options["currency"],
            )
        except PartnerRejected as error:
            raise CommandError(error.message) from error
        where = f" at {partner.wallet_url}" if partner.is_seamless else ""
        self.stdout.write(f"{partner.code}: {partner.wallet_mode} wallet{where}, in {partner.currency}")
