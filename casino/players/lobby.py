"""The lobby's reads: every table with what its card shows, in a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch

from baccarat.rules import MAIN_BETS
from casino.players.video import video_still_path
from tables.models import BetLimit, DealerSession, Table
from tables.players import dealer_display_name
from wagering.selectors import live_coup_bettor_counts


@dataclass(frozen=True)
class LobbyCard:
    table: Table
    dealer: str | None  # the dealer on duty at a dealer table, as players see them
    bettors: int  # players with bets on the live coup
    limits: list[BetLimit]  # the main bets' limits in the player's currency
    offered: bool  # whether the table takes bets in the player's currency
    currencies: list[str]  # those it takes bets in
    still: str | None  # a recent still of its video, where the site serves one (the demo's test stream)


def lobby_cards(*, currency: str) -> list[LobbyCard]:
    """Every table, open ones first, for a player betting in ``currency``: five queries whatever the number."""
    on_duty = DealerSession.objects.filter(ended_at__isnull=True).select_related("dealer")
    tables = list(
        Table.objects.order_by("-is_open", "name", "pk").prefetch_related(
            "limit_sets__limits", Prefetch("dealer_sessions", queryset=on_duty, to_attr="dealers_on_duty")
        )
    )
    bettors = live_coup_bettor_counts(table_ids=[table.pk for table in tables])
    return [_lobby_card(table, currency=currency, bettors=bettors.get(table.pk, 0)) for table in tables]


def _lobby_card(table: Table, *, currency: str, bettors: int) -> LobbyCard:
    limit_sets = table.limit_sets.all()
    limit_set = next((each for each in limit_sets if each.currency == currency), None)
    on_duty = table.dealers_on_duty[0].dealer if table.dealers_on_duty else None
    return LobbyCard(
        table=table,
        dealer=dealer_display_name(on_duty) if on_duty is not None else None,
        bettors=bettors,
        limits=[limit for limit in limit_set.limits.all() if limit.bet_type in MAIN_BETS] if limit_set else [],
        offered=limit_set is not None,
        currencies=[each.currency for each in limit_sets],
        still=video_still_path(code=table.code, video_url=table.video_url) if table.is_open else None,
    )
