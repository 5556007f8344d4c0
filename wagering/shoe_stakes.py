"""Reads of who staked what on each coup of a shoe: the bettors' stakes per coup and bet type."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Sum

from baccarat.paytables import CENT
from tables.models import Shoe
from wagering.models import Bet


@dataclass(frozen=True)
class CoupStake:
    """One bettor's stake on one bet type of one coup (every bet of theirs on it, added up), in one currency.

    The bettor is an online player (``user_id``) or a patron seated at a dealer table (``seat_session_id``).
    """

    coup_id: int
    bet_type: str
    currency: str
    stake: Decimal
    user_id: int | None
    username: str | None
    seat_session_id: int | None
    seat_number: int | None
    patron_name: str | None  # a seated patron: their guest name, else their username

    @property
    def bettor_key(self) -> tuple[str, int]:
        return ("user", self.user_id) if self.user_id is not None else ("seat", self.seat_session_id)


def shoe_stakes(*, shoe: Shoe) -> list[CoupStake]:
    """Every stake on the shoe's coups, bets undone before betting closed left out (refunded ones stay: they
    were on the layout): one query."""
    rows = (
        Bet.objects.filter(coup__shoe=shoe)
        .exclude(state=Bet.State.CANCELLED)
        .values(
            "coup_id",
            "bet_type",
            "stake_account__currency",
            "user_id",
            "user__username",
            "seat_session_id",
            "seat_session__seat__number",
            "seat_session__guest_name",
            "seat_session__player__username",
        )
        .annotate(total=Sum("stake"))
        .order_by("coup_id", "user_id", "seat_session_id", "bet_type")
    )
    return [
        CoupStake(
            coup_id=row["coup_id"],
            bet_type=row["bet_type"],
            currency=row["stake_account__currency"],
            stake=row["total"].quantize(CENT),  # SQLite sums lose the scale
            user_id=row["user_id"],
            username=row["user__username"],
            seat_session_id=row["seat_session_id"],
            seat_number=row["seat_session__seat__number"],
            patron_name=row["seat_session__guest_name"] or row["seat_session__player__username"],
        )
        for row in rows
    ]
