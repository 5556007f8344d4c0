"""The drop/win reports of a table's day and of a shoe."""

from __future__ import annotations

from django.db import models

from kernel.money import MONEY
from tables.models import Shoe, Table
from wagering.models.accounts import ZERO, house_currency


class GameReport(models.Model):
    """Drop/win of a set of coups in one currency: results, the stakes in that currency, what went back
    to players, the house's win. A set of coups with bets in several currencies has a report for each."""

    currency = models.CharField(max_length=3, default=house_currency)
    coups = models.PositiveIntegerField(default=0, help_text="coups played (resolved or settled)")
    void_coups = models.PositiveIntegerField(default=0)
    banker_wins = models.PositiveIntegerField(default=0)
    player_wins = models.PositiveIntegerField(default=0)
    ties = models.PositiveIntegerField(default=0)
    bets = models.PositiveIntegerField(default=0, help_text="bets settled")
    players = models.PositiveIntegerField(default=0)
    staked = models.DecimalField(**MONEY, default=ZERO)
    returned = models.DecimalField(**MONEY, default=ZERO, help_text="paid back to players: stakes and winnings")
    house_win = models.DecimalField(**MONEY, default=ZERO)
    hold_percent = models.DecimalField(max_digits=9, decimal_places=2, null=True, blank=True)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class TableDayReport(GameReport):
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="day_reports")
    day = models.DateField(help_text="the UTC day the coups opened")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "day", "currency"], name="one_report_per_table_day_currency")
        ]
        ordering = ["-day", "table", "currency"]

    def __str__(self) -> str:
        return f"{self.table.code} {self.day} {self.currency}"


class ShoeReport(GameReport):
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="reports")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["shoe", "currency"], name="one_report_per_shoe_currency")]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.shoe} {self.currency}"
