"""A dealer table's chips: what moves in and out of its tray (buy-ins, fills, credits), and the tray's counts
that open and close a shift."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from kernel.currencies import currency_validator
from kernel.money import MONEY
from tables.models import SeatSession, Table
from wagering.models.accounts import LedgerTransaction


class ChipMovement(models.Model):
    """Chips into or out of a table's tray, each its own ledger transaction: a seated patron's buy-in (cash
    into the drop box, chips out of the tray), a fill from the cage or a credit back to it."""

    class Kind(models.TextChoices):
        BUY_IN = "buy_in", "Buy-in"
        FILL = "fill", "Fill"
        CREDIT = "credit", "Credit"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="chip_movements")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    currency = models.CharField(max_length=3, validators=[currency_validator])
    amount = models.DecimalField(**MONEY)
    seat_session = models.ForeignKey(
        SeatSession, null=True, blank=True, on_delete=models.PROTECT, related_name="chip_movements"
    )
    transaction = models.OneToOneField(LedgerTransaction, on_delete=models.PROTECT, related_name="chip_movement")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="chip_movement_positive"),
            models.CheckConstraint(
                condition=Q(kind="buy_in", seat_session__isnull=False)
                | (~Q(kind="buy_in") & Q(seat_session__isnull=True)),
                name="a_buy_in_is_a_seats",
            ),
        ]
        indexes = [models.Index(fields=["table", "currency", "created_at"])]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.amount} {self.currency} at {self.table.code}"


class TrayCount(models.Model):
    """The chips counted in a table's tray in one currency, opening or closing a shift. ``ledger_balance`` is
    the tray account's balance when counted: between an opening and its closing count, the tray should have
    changed by exactly what its account did (``wagering.chip_reports``)."""

    class Kind(models.TextChoices):
        OPENING = "opening", "Opening count"
        CLOSING = "closing", "Closing count"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="tray_counts")
    currency = models.CharField(max_length=3, validators=[currency_validator])
    kind = models.CharField(max_length=8, choices=Kind.choices)
    counted = models.DecimalField(**MONEY)
    ledger_balance = models.DecimalField(**MONEY)
    opening = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="closing", help_text="closing only"
    )
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(counted__gte=0), name="tray_count_not_negative"),
            models.CheckConstraint(
                condition=Q(kind="opening", opening__isnull=True) | Q(kind="closing", opening__isnull=False),
                name="a_closing_count_closes_an_opening",
            ),
        ]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.counted} {self.currency} at {self.table.code}"
