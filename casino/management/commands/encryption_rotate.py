"""Finish a key rotation: ``manage.py encryption_rotate`` re-encrypts every stored secret with the first key.

Put the new key first in ENCRYPTION_KEY (``new,old``), restart, run this, then drop the old key.
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from kernel.encryption import DecryptionFailed
from partners.wallet_settings import wallet_secrets_reencrypt
from partners.webhooks import webhook_secrets_reencrypt
from tables.shoes import shoe_secrets_reencrypt


class Command(BaseCommand):
    help = "Re-encrypt the shoes', webhook endpoints' and partner wallets' secrets with ENCRYPTION_KEY's first key."

    def handle(self, *args, **options) -> None:
        try:
            with transaction.atomic():
                shoes, endpoints = shoe_secrets_reencrypt(), webhook_secrets_reencrypt()
                wallets = wallet_secrets_reencrypt()
        except DecryptionFailed as error:
            raise CommandError(f"{error}: nothing was changed") from error
        self.stdout.write(
            f"re-encrypted the secrets of {shoes} shoes, {endpoints} webhook endpoints and {wallets} partner wallets"
        )
