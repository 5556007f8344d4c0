"""A new API key for a partner, printed once: ``manage.py partner_key_create <partner_code> [--name ...]``."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from partners import services as partner_services
from partners.identifiers import PartnerRejected
from partners.models import Partner


class Command(BaseCommand):
    help = "Create an API key for a partner and print it (only its hash is kept: it cannot be shown again)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("partner_code", help="the partner's code")
        parser.add_argument("--name", default="", help="what the key is for, e.g. production")
        parser.add_argument("--create", metavar="PARTNER_NAME", help="create the partner first, with this name")

    def handle(self, *args, **options) -> None:
        code = options["partner_code"]
        partner = Partner.objects.filter(code=code).first()
        try:
            if partner is None and options["create"]:
                partner = partner_services.partner_create(code=code, name=options["create"])
            if partner is None:
                raise CommandError(f"there is no partner {code!r}: create it in the admin, or pass --create NAME")
            issued = partner_services.partner_api_key_create(partner=partner, name=options["name"])
        except PartnerRejected as error:
            raise CommandError(error.message) from error
        self.stderr.write(f"API key {issued.api_key.prefix} for {partner.code}: store it now, it is shown only once.")
        self.stdout.write(issued.key)
