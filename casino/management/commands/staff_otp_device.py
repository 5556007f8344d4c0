"""Give a staff account its two-factor (TOTP) device and print its secret, once."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from casino.sign_in.two_factor import StaffDeviceError, device_secret, staff_totp_device_issue


class Command(BaseCommand):
    help = "Create a staff account's TOTP device and print its secret and otpauth:// URI (shown this once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--replace", action="store_true", help="discard the account's current device")

    def handle(self, *args, username: str, replace: bool, **options) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}")
        try:
            device = staff_totp_device_issue(user=user, replace=replace)
        except StaffDeviceError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            f"Two-factor device for {username}: add it to an authenticator app, this is shown once.\n"
            f"  secret (base32): {device_secret(device)}\n  URI: {device.config_url}"
        )
