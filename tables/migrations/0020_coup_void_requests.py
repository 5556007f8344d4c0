"""Void requests (issue 27): once the players have seen a coup's first cards, its void is requested by one pit
boss and approved by another holder of the new ``tables.void_dealt_coup`` permission (four eyes, in a constraint
as for result corrections)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0019_shoe_shuffled_by"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="coup",
            options={
                "ordering": ["-opened_at", "-id"],
                "permissions": [
                    ("void_coup", "Can void a coup and refund its bets"),
                    ("resolve_dealing_error", "Can hold a coup and decide a dealing error"),
                    ("correct_result", "Can request and approve (four eyes) the correction of a recorded result"),
                    (
                        "void_dealt_coup",
                        "Can approve (four eyes) the void of a coup whose first cards the players have seen",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="CoupVoidRequest",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("dealing_error", models.CharField(help_text="the ground (``VoidReason``): §4.2", max_length=24)),
                (
                    "description",
                    models.TextField(help_text="the pit boss's account of why the dealing order cannot be restored"),
                ),
                (
                    "held_coup",
                    models.BooleanField(
                        help_text="the request held the coup (it was dealing): a rejection lets it go on"
                    ),
                ),
                (
                    "state",
                    models.CharField(
                        choices=[("pending", "Pending"), ("approved", "Approved"), ("rejected", "Rejected")],
                        default="pending",
                        max_length=8,
                    ),
                ),
                ("requested_at", models.DateTimeField(auto_now_add=True)),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
                ("decision_reason", models.TextField(blank=True)),
                (
                    "coup",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="void_requests", to="tables.coup"
                    ),
                ),
                (
                    "decided_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "requested_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            options={
                "ordering": ["-requested_at", "-id"],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("state", "pending")), fields=("coup",), name="one_pending_void_request"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("decided_by__isnull", True),
                            models.Q(("decided_by", models.F("requested_by")), _negated=True),
                            _connector="OR",
                        ),
                        name="void_request_four_eyes",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("decided_at__isnull", True), ("decided_by__isnull", True), ("state", "pending")),
                            models.Q(
                                models.Q(("state", "pending"), _negated=True),
                                ("decided_at__isnull", False),
                                ("decided_by__isnull", False),
                            ),
                            _connector="OR",
                        ),
                        name="void_request_decided_once",
                    ),
                ],
            },
        ),
    ]
