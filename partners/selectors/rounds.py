"""Reads for the partner API about rounds (coups): one by its round id with the partner's players' bets, a
player's bets and rounds with what they staked and got back, and a table's public history.

No writes here. Amounts are ``Decimal`` (the API renders them as strings).
"""

from __future__ import annotations

from datetime import date

from django.db.models import Prefetch, Q, QuerySet

from partners.models import Partner, PartnerPlayer
from tables.models import Coup, DealtCard, Table
from tables.selectors import coup_public
from wagering.models import Bet, LedgerEntry, money


def coup_record(*, coup: Coup) -> dict:
    """A coup as players see it (``coup_public``), its deadline a datetime like every other."""
    return {**coup_public(coup=coup), "betting_closes_at": coup.betting_closes_at}


# --- A partner's players' bets and rounds --------------------------------------------------------


def seen_by(partner: Partner) -> Q:
    """A table's own coups or shoes, and the private ones of this partner's players (a table dealt on demand):
    never another partner's players' private games."""
    return Q(player__isnull=True) | Q(player__partner_player__partner=partner)


def round_find(*, partner: Partner, round_id: str) -> Coup | None:
    return Coup.objects.select_related("table", "shoe").filter(seen_by(partner), round_id=round_id).first()


def round_record(*, partner: Partner, coup: Coup) -> dict:
    """A coup by its round id, with the bets of the partner's players on it (never another partner's)."""
    bets = Bet.objects.filter(coup=coup, user__partner_player__partner=partner)
    return {
        **table_round_record(coup=coup),
        "bets": list(bets.select_related("coup__table", "settlement", "user__partner_player").order_by("pk")),
    }


def partner_player_bets(
    *, player: PartnerPlayer, table_code: str | None = None, round_id: str | None = None
) -> QuerySet[Bet]:
    """The player's bets, newest coup first."""
    bets = Bet.objects.filter(user=player.user).select_related("coup__table", "settlement", "user__partner_player")
    if table_code:
        bets = bets.filter(coup__table__code=table_code)
    if round_id:
        bets = bets.filter(coup__round_id=round_id)
    return bets.order_by("-coup_id", "pk")


def partner_player_rounds(
    *,
    player: PartnerPlayer,
    table_code: str | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
) -> QuerySet[Coup]:
    """The coups the player bet on, newest first; dates are the UTC days the coups opened, both included."""
    coups = Coup.objects.filter(pk__in=Bet.objects.filter(user=player.user).values("coup_id"))
    if table_code:
        coups = coups.filter(table__code=table_code)
    return _rounds_listed(coups, date_from=date_from, date_to=date_to)


def _rounds_listed(coups: QuerySet[Coup], *, date_from: date | None, date_to: date | None) -> QuerySet[Coup]:
    """Coups as the round lists show them: opened on the UTC days given (both included), newest first, with their
    table, shoe and cards in dealing order."""
    if date_from is not None:
        coups = coups.filter(opened_at__date__gte=date_from)
    if date_to is not None:
        coups = coups.filter(opened_at__date__lte=date_to)
    cards = Prefetch("cards", queryset=DealtCard.objects.order_by("position"))
    return coups.select_related("table", "shoe").prefetch_related(cards).order_by("-opened_at", "-pk")


def player_round_records(*, player: PartnerPlayer, coups: list[Coup]) -> list[dict]:
    """Each coup with the player's bets on it, what they staked and got back, the balance before and after."""
    bets_by_coup: dict[int, list[Bet]] = {}
    for bet in Bet.objects.filter(user=player.user, coup__in=coups).select_related("settlement").order_by("pk"):
        bets_by_coup.setdefault(bet.coup_id, []).append(bet)
    legs_by_coup: dict[int, list[LedgerEntry]] = {}
    legs = LedgerEntry.objects.filter(account__user=player.user, transaction__coup__in=coups).order_by("pk")
    for leg in legs.select_related("transaction"):
        legs_by_coup.setdefault(leg.transaction.coup_id, []).append(leg)
    records = []
    for coup in coups:
        bets, coup_legs = bets_by_coup.get(coup.pk, []), legs_by_coup.get(coup.pk, [])
        standing = [bet for bet in bets if bet.state != Bet.State.CANCELLED]
        settlements = [bet.settlement for bet in standing if hasattr(bet, "settlement")]
        records.append(
            {
                **coup_record(coup=coup),
                "table": coup.table.code,
                "opened_at": coup.opened_at,
                "bets": bets,
                "currency": player.partner.currency,
                "staked": money(sum(bet.stake for bet in standing)),
                "returned": money(sum(settlement.returned for settlement in settlements)),
                "balance_before": coup_legs[0].balance_before if coup_legs else None,
                "balance_after": coup_legs[-1].balance_after if coup_legs else None,
            }
        )
    return records


# --- A table's rounds ----------------------------------------------------------------------------


def table_rounds(
    *, partner: Partner, table: Table, date_from: date | None = None, date_to: date | None = None
) -> QuerySet[Coup]:
    """The table's coups, newest first (UTC days they opened, both included): public, no bets."""
    coups = table.coups.filter(seen_by(partner))
    return _rounds_listed(coups, date_from=date_from, date_to=date_to)


def table_round_record(*, coup: Coup) -> dict:
    return {
        **coup_record(coup=coup),
        "table": coup.table.code,
        "opened_at": coup.opened_at,
        "resolved_at": coup.resolved_at,
        "settled_at": coup.settled_at,
        "voided_at": coup.voided_at,
        "void_reason": coup.void_reason or None,
    }
