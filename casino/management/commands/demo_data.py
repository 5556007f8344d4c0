"""Demo data (idempotent): staff roles and users with their two-factor devices, demo players with money,
and demo tables. Never in production: the demo users' password is public."""

from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from casino.sign_in.two_factor import device_secret, staff_device, staff_totp_device_issue
from tables.limit_sets import limit_set_create
from tables.models import Pit, Table
from tables.pits import pit_create
from tables.roles import DEALER, FLOOR_MANAGER, PIT_BOSS, SURVEILLANCE, roles_ensure
from tables.seating import patron_seat
from tables.services import dealer_login, table_create, table_open
from wagering.wallets import wallet_deposit

DEMO_PASSWORD = "punto-demo"
PLAYERS = ("alice", "bob", "carol")
# The floor manager oversees every pit and approves the void of a coup whose first cards were seen (four eyes).
STAFF = (("pitboss", PIT_BOSS), ("floor", FLOOR_MANAGER), ("dealer", DEALER), ("surveillance", SURVEILLANCE))
DEMO_TABLES = (
    {"code": "pb1", "name": "Punto Banco 1", "betting_seconds": 12, "side_bets": ["player_pair", "banker_pair"]},
    {
        "code": "nc2",
        "name": "No Commission 2",
        "betting_seconds": 15,
        "commission": False,
        "side_bets": ["player_pair", "banker_pair", "either_pair", "perfect_pair", "player_bonus", "banker_bonus"],
    },
    {"code": "live3", "name": "Live Dealer 3", "dealing_mode": Table.DealingMode.DEALER, "betting_seconds": 20},
    {"code": "live4", "name": "Live Dealer 4", "dealing_mode": Table.DealingMode.DEALER, "betting_seconds": 20},
    # Seed 004: each player deals alone, from a four-deck shoe of their own.
    {
        "code": "rng5",
        "name": "Deal Your Own 5",
        "dealing_mode": Table.DealingMode.RNG,
        "decks": 4,
        "side_bets": ["player_pair", "banker_pair"],
    },
)
# live3 opens with the demo dealer logged in and two patrons seated (one a known player); live4 stays closed.
DEMO_DEALER_TABLE = "live3"
# ``manage.py serve --demo-video`` (scripts/run.sh) gives each dealer table a live test stream.
DEMO_VIDEO_TABLES = tuple(spec["code"] for spec in DEMO_TABLES if spec.get("dealing_mode") == Table.DealingMode.DEALER)
DEMO_SEATED = ((3, "carol", ""), (7, None, "gentleman in grey"))

# Every demo table is in the main pit, which the demo pit boss supervises (the pit screen shows them its tables).
DEMO_PIT = {"code": "main", "name": "Main pit"}
DEMO_PIT_BOSS = "pitboss"

# Limits in other currencies than the house's: partners' players in them may bet at these tables.
DEMO_OTHER_CURRENCIES = {"pb1": ("USD", "GBP"), "nc2": ("USD",)}


class Command(BaseCommand):
    help = "Load demo data: roles, staff, players with wallets, and tables (safe to run again)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--only-local",
            action="store_true",
            help="load nothing (and say so) when the settings are a deployment's: REDIS_URL or PRODUCTION set",
        )

    def handle(self, *args, only_local: bool, **options) -> None:
        if only_local and (settings.PRODUCTION or settings.REDIS_URL):
            self.stdout.write(
                "No demo data loaded (REDIS_URL or PRODUCTION is set): create staff with 'manage.py createsuperuser' "
                "and give each its two-factor device with 'manage.py staff_otp_device USERNAME'."
            )
            return
        if settings.PRODUCTION:
            raise CommandError("demo users are never created in production (PRODUCTION=1): their password is public")
        self.load()

    @transaction.atomic
    def load(self) -> None:
        groups = roles_ensure()
        users = get_user_model()
        admin, created = users.objects.get_or_create(
            username="admin", defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            admin.set_password(DEMO_PASSWORD)
            admin.save()
        for username, role in STAFF:
            user, created = users.objects.get_or_create(username=username, defaults={"is_staff": True})
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
                user.groups.add(groups[role])
        staff = [admin, *users.objects.filter(username__in=[username for username, _ in STAFF]).order_by("pk")]
        devices = {user.username: staff_device(user=user) or staff_totp_device_issue(user=user) for user in staff}
        for username in PLAYERS:
            player, created = users.objects.get_or_create(username=username)
            if created:
                player.set_password(DEMO_PASSWORD)
                player.save()
                wallet_deposit(
                    user=player,
                    amount=Decimal("1000.00"),
                    idempotency_key=f"demo-{username}",
                    actor=admin,
                    reason="demo money",
                )
        for spec in DEMO_TABLES:
            if not Table.objects.filter(code=spec["code"]).exists():
                table = table_create(actor=admin, **spec)
                for currency in DEMO_OTHER_CURRENCIES.get(table.code, ()):
                    limit_set_create(
                        table=table, actor=admin, currency=currency, max_differential="5000", reason="demo"
                    )
                if table.dealing_mode != Table.DealingMode.DEALER:
                    table_open(table=table, actor=admin, reason="demo")
                if table.code == DEMO_DEALER_TABLE:
                    self.dealer_table_open(table, admin)
        if not Pit.objects.filter(code=DEMO_PIT["code"]).exists():
            pit_create(
                **DEMO_PIT,
                tables=Table.objects.filter(code__in=[spec["code"] for spec in DEMO_TABLES]),
                bosses=users.objects.filter(username=DEMO_PIT_BOSS),
                actor=admin,
                reason="demo",
            )
        self.stdout.write(
            f"Demo data ready: players {', '.join(PLAYERS)}; staff admin, pitboss, floor, dealer, surveillance; "
            f"password {DEMO_PASSWORD!r} for all.\nStaff sign in with a two-factor code too: add these secrets to an "
            "authenticator app (demo only):"
        )
        for username, device in devices.items():
            self.stdout.write(f"  {username}: {device_secret(device)}  {device.config_url}")

    def dealer_table_open(self, table: Table, admin) -> None:
        users = get_user_model().objects
        table_open(table=table, actor=admin, reason="demo")
        dealer_login(table=table, dealer=users.get(username="dealer"), actor=admin)
        for seat, username, guest_name in DEMO_SEATED:
            player = users.get(username=username) if username else None
            patron_seat(table=table, seat_number=seat, actor=admin, player=player, guest_name=guest_name)
