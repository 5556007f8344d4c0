"""A table's ten seats (seed 000 §1.1) and the patrons seated at them."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from kernel.currencies import currency_validator
from tables.models.floor import Table


class Seat(models.Model):
    """One of the ten seats of a table (seed 000 §1.1), each a betting zone."""

    SEATS_PER_TABLE = 10
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(SEATS_PER_TABLE)])

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="one_seat_number_per_table")]
        ordering = ["table", "number"]

    def __str__(self) -> str:
        return f"{self.table.code} seat {self.number}"


class SeatSession(models.Model):
    """A patron at a dealer table, from being seated to leaving: a known player (``player``) or a guest the
    dealer names. A move to another seat keeps the session (the patron's rating is per session); their
    chips on the layout are bets of the session, in its ``currency``."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="seat_sessions")
    seat = models.ForeignKey(Seat, on_delete=models.PROTECT, related_name="sessions")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="seat_sessions"
    )
    guest_name = models.CharField(max_length=40, blank=True, help_text="a patron who is not a known player")
    currency = models.CharField(max_length=3, validators=[currency_validator])
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    seated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["seat"], condition=Q(ended_at__isnull=True), name="one_patron_per_seat"),
            models.UniqueConstraint(
                fields=["player"],
                condition=Q(ended_at__isnull=True, player__isnull=False),
                name="a_player_seated_once",
            ),
            models.CheckConstraint(
                condition=Q(player__isnull=False) | ~Q(guest_name=""), name="a_player_or_a_guest_name"
            ),
        ]
        indexes = [models.Index(fields=["table", "ended_at"])]
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.patron_name} at {self.seat}"

    @property
    def patron_name(self) -> str:
        return self.guest_name or self.player.get_username()
