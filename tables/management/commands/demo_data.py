"""Demo data (idempotent): staff roles and users, demo players with money, and demo tables."""

from decimal import Decimal

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from tables import services
from tables.models import Table
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE, roles_ensure
from wagering.services import wallet_deposit

DEMO_PASSWORD = "punto-demo"
PLAYERS = ("alice", "bob", "carol")
STAFF = (("pitboss", PIT_BOSS), ("dealer", DEALER), ("surveillance", SURVEILLANCE))
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
)


class Command(BaseCommand):
    help = "Load demo data: roles, staff, players with wallets, and tables (safe to run again)."

    @transaction.atomic
    def handle(self, *args, **options) -> None:
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
                table = services.table_create(actor=admin, **spec)
                if table.dealing_mode == Table.DealingMode.AUTOMATIC:
                    services.table_open(table=table, actor=admin, reason="demo")
        self.stdout.write(
            f"Demo data ready: players {', '.join(PLAYERS)}; staff admin, pitboss, dealer, surveillance; "
            f"password {DEMO_PASSWORD!r} for all."
        )
