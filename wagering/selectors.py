"""Reads of wallets, bets and the ledger: no writes here."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import cache

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import Count, Min, Q, QuerySet, Sum

from baccarat.coup import BANKER, PLAYER, CoupResult
from baccarat.paytables import Paytable
from kernel.lookups import rows_any_of
from kernel.raw_rows import columns_sql, model_attnames, orm_values, sql_literal
from tables.models import Coup, PersonalLimitMarker, SeatSession, Table
from tables.selectors import coup_public, coup_rules, rules_from_snapshot
from wagering.amounts import amounts_as_strings
from wagering.locks import StakeAccount, wallets_read
from wagering.models import (
    ZERO,
    Account,
    Bet,
    BetSettlement,
    CoupStakeTotal,
    LedgerEntry,
    money,
)

User = AbstractBaseUser


def bet_paid(paytable: Paytable, stake: Decimal, result: CoupResult) -> tuple[str, Decimal]:
    """A bet's outcome by the result and what it returns (``baccarat.paytables``: winnings rounded down)."""
    return BetSettlement.Outcome(paytable.outcome(result)), paytable.payout(stake, result)


def coup_max_differential(*, coup: Coup, currency: str) -> Decimal:
    return coup_rules(coup=coup).currencies[currency].max_differential


def wallet_currency(*, user: User) -> str:
    """The currency of the player's wallet (the house's for a player who has none yet)."""
    currency = Account.objects.filter(kind=Account.Kind.PLAYER, user=user).values_list("currency", flat=True).first()
    return currency or settings.HOUSE_CURRENCY


@dataclass(frozen=True)
class PlayerMarkers:
    """A player's valid personal limit markers at a table, oldest granted first."""

    markers: tuple[PersonalLimitMarker, ...]

    def covering(self, *, bet_type: str, currency: str) -> PersonalLimitMarker | None:
        """The marker whose limits a bet of this type in this currency keeps: the latest granted naming both,
        or None (the table's limits)."""
        for marker in reversed(self.markers):
            if marker.currency == currency and bet_type in marker.bet_types:
                return marker
        return None


def personal_limit_marker(*, table_id: int, user: User, at: datetime) -> PlayerMarkers | None:
    """The player's personal limit markers valid and unrevoked at the table at ``at`` (None: none)."""
    return personal_limit_markers(table_id=table_id, user_ids={user.pk}, at=at).get(user.pk)


def personal_limit_markers(*, table_id: int, user_ids: set[int], at: datetime) -> dict[int, PlayerMarkers]:
    """``personal_limit_marker`` of each of these players (by user id; none: no marker), in one prepared
    statement whatever their number (every group commit's batch reads them)."""
    moment = connection.ops.adapt_datetimefield_value(at)
    rows = rows_any_of(
        _markers_sql(),
        "m.player_id",
        user_ids,
        parameters=(table_id, moment, moment),
        then=" ORDER BY m.valid_from, m.id",
    )
    held: dict[int, list[PersonalLimitMarker]] = defaultdict(list)
    names = model_attnames(PersonalLimitMarker)
    for row in rows:
        marker = PersonalLimitMarker.from_db(connection.alias, None, orm_values(PersonalLimitMarker, names, row))
        held[marker.player_id].append(marker)
    return {user_id: PlayerMarkers(markers=tuple(markers)) for user_id, markers in held.items()}


@cache
def _markers_sql() -> str:
    """The markers valid and unrevoked at a table at a moment (its id, then the moment twice)."""
    quote = connection.ops.quote_name  # names of ours, not input
    return (
        f"SELECT {columns_sql(PersonalLimitMarker, model_attnames(PersonalLimitMarker), alias='m')} "  # noqa: S608
        f"FROM {quote(PersonalLimitMarker._meta.db_table)} m WHERE m.table_id = %s AND m.revoked_at IS NULL "
        "AND m.valid_from <= %s AND (m.valid_until IS NULL OR m.valid_until > %s)"
    )


def player_personal_limits(*, table_id: int, user: User, currency: str, at: datetime) -> dict[str, dict[str, str]]:
    """What the player's markers let them bet at the table in ``currency``, by bet type: ``min`` and ``max``
    (strings). For the player's own eyes only (the table page's Limits)."""
    held = personal_limit_marker(table_id=table_id, user=user, at=at) if user.is_authenticated else None
    if held is None:
        return {}
    limits = {}
    for bet_type in {bet_type for marker in held.markers for bet_type in marker.bet_types}:
        marker = held.covering(bet_type=bet_type, currency=currency)
        if marker is not None:
            limits[bet_type] = {"min": str(marker.minimum), "max": str(marker.maximum)}
    return limits


def coup_stake_totals(*, coup: Coup) -> dict[str, dict[str, Decimal]]:
    """The whole table's stakes in play on the coup, by currency and bet type (its running totals)."""
    totals: dict[str, dict[str, Decimal]] = defaultdict(dict)
    rows = CoupStakeTotal.objects.filter(coup=coup, total__gt=0).values_list("currency", "bet_type", "total")
    for currency, bet_type, total in rows:
        totals[currency][bet_type] = money(total)
    return totals


def coup_stake_totals_and_bettors(*, coup: Coup) -> tuple[dict[str, dict[str, Decimal]], dict[str, dict[str, int]]]:
    """``coup_stake_totals`` and, by currency and bet type, the bettors (``coup_bettor_counts``): one query."""
    totals: dict[str, dict[str, Decimal]] = defaultdict(dict)
    bettors: dict[str, dict[str, int]] = defaultdict(dict)
    rows = CoupStakeTotal.objects.filter(Q(total__gt=0) | Q(bettors__gt=0), coup=coup)
    for currency, bet_type, total, count in rows.values_list("currency", "bet_type", "total", "bettors"):
        if total > 0:
            totals[currency][bet_type] = money(total)
        if count > 0:
            bettors[currency][bet_type] = count
    return totals, bettors


def coup_totals_public(
    *,
    coup: Coup,
    currency: str,
    table_totals: Mapping[str, Decimal] | None = None,
    bettors: Mapping[str, int] | None = None,
) -> dict:
    """The data of the table's ``bet_totals`` event in the currency: the stakes per bet type and how many
    bettors each has. ``table_totals`` and ``bettors`` as a placement read them under the coup's lock, or as the
    table's sockets share them (``casino.players.table_shared``); else read now (for a page opening mid-window)."""
    if table_totals is None:
        table_totals = coup_stake_totals(coup=coup).get(currency, {})
    return {
        "round_id": coup.round_id,
        "currency": currency,
        "totals": amounts_as_strings({bet_type: total for bet_type, total in table_totals.items() if total}),
        "bettors": dict(bettors) if bettors is not None else coup_bettor_counts(coup=coup, currency=currency),
    }


def coup_bettor_counts(*, coup: Coup, currency: str) -> dict[str, int]:
    """How many bettors (players and seat sessions) have stakes standing on the coup in the currency, per bet
    type: the running counts the placements keep (``CoupStakeTotal.bettors``), never a count of the coup's
    bets, so it costs the same at the first bet and the thirty thousandth."""
    rows = CoupStakeTotal.objects.filter(coup=coup, currency=currency, bettors__gt=0).values_list("bet_type", "bettors")
    return dict(rows)


def players_wallets(*, user_ids: set[int]) -> dict[int, StakeAccount]:
    """The players' wallets (by user id; none for a player without one) as they stand, unlocked: what a group
    of placements is checked against before the coup's lock (``wallets_locked`` reads them again under it)."""
    return wallets_read(user_ids)


def players_open_stakes(*, user_ids: set[int]) -> dict[int, dict[int, dict[str, Decimal]]]:
    """Each player's stakes not yet settled (by user id, coup id and bet type), in one query."""
    stakes: dict[int, dict[int, dict[str, Decimal]]] = defaultdict(lambda: defaultdict(dict))
    # One statement whatever the number of players: a group commit's, twice a batch.
    for row in rows_any_of(_open_stakes_sql(), "b.user_id", user_ids, then=" GROUP BY 1, 2, 3"):
        user_id, coup_id, bet_type, total = orm_values(Bet, _OPEN_STAKES_READ, row)
        stakes[user_id][coup_id][bet_type] = money(total)
    return stakes


_OPEN_STAKES_READ = ("user_id", "coup_id", "bet_type", "stake")  # the stake column's place holds its sum


@cache
def _open_stakes_sql() -> str:
    quote = connection.ops.quote_name  # names of ours, not input
    return (
        f"SELECT b.user_id, b.coup_id, b.bet_type, SUM(b.stake) FROM {quote(Bet._meta.db_table)} b "  # noqa: S608
        f"WHERE b.state = {sql_literal(Bet.State.ACCEPTED.value)}"
    )


def coup_bet_totals(*, coup: Coup, user: User | None = None, currency: str | None = None) -> dict[str, Decimal]:
    """Stakes in play on the coup per bet type: the whole table's in the currency (its running totals; the
    house's unless named), or one player's (all in their wallet's currency)."""
    if user is None:
        totals = CoupStakeTotal.objects.filter(coup=coup, currency=currency or settings.HOUSE_CURRENCY, total__gt=0)
        rows = totals.values_list("bet_type", "total")
    else:
        bets = Bet.objects.filter(coup=coup, user=user, state=Bet.State.ACCEPTED).values_list("bet_type")
        rows = bets.annotate(total=Sum("stake")).order_by()
    return {bet_type: money(total) for bet_type, total in rows}


def largest_return(*, rules: dict, stakes: Mapping[str, Decimal]) -> Decimal:
    """The most these stakes on one coup can bring back, by the coup's paytables (``rules``: its stored rules)."""
    return stakes_largest_return(paytables=rules_from_snapshot(rules).table.paytables(), stakes=stakes)


def stakes_largest_return(*, paytables: Mapping[str, Paytable], stakes: Mapping[str, Decimal]) -> Decimal:
    return sum((paytables[bet_type].largest_return(stake) for bet_type, stake in stakes.items()), ZERO)


def open_bets_largest_return(*, stakes_by_coup: Mapping[int, Mapping[str, Decimal]]) -> Decimal:
    """The most a player's open stakes on these coups can bring back, each by its coup's paytables: one
    query for the coups' rules (none without stakes)."""
    return open_bets_largest_returns(stakes_by_user={0: stakes_by_coup})[0]


def open_bets_largest_returns(
    *, stakes_by_user: Mapping[int, Mapping[int, Mapping[str, Decimal]]]
) -> dict[int, Decimal]:
    """``open_bets_largest_return`` of each player (by user id): one query for all their coups' rules."""
    coup_ids = {coup_id for by_coup in stakes_by_user.values() for coup_id in by_coup}
    rules = dict(Coup.objects.filter(pk__in=coup_ids).values_list("pk", "rules")) if coup_ids else {}
    paytables = {coup_id: rules_from_snapshot(rules[coup_id]).table.paytables() for coup_id in coup_ids}
    return {
        user_id: sum(
            (stakes_largest_return(paytables=paytables[coup_id], stakes=stakes) for coup_id, stakes in by_coup.items()),
            ZERO,
        )
        for user_id, by_coup in stakes_by_user.items()
    }


def wallet_open_largest_return(*, user_id: int) -> Decimal:
    """The most the player's open bets (on any coup not yet settled) can still bring back to the wallet."""
    stakes_by_user = players_open_stakes(user_ids={user_id})
    return open_bets_largest_returns(stakes_by_user=stakes_by_user).get(user_id, ZERO)


def coup_bets(*, coup: Coup) -> QuerySet[Bet]:
    return Bet.objects.filter(coup=coup).select_related("user", "settlement").order_by("pk")


def coup_top_bettors(*, coup: Coup) -> dict[str, User | SeatSession | None]:
    """Who shows each hand (seed 000 §5.1): the highest total stake on it among online players and seated
    patrons (a seat session); the first to bet on equal stakes; nobody: the dealer (None)."""
    rows = (
        Bet.objects.filter(coup=coup, bet_type__in=(PLAYER, BANKER), state__in=(Bet.State.ACCEPTED, Bet.State.SETTLED))
        .values("bet_type", "user_id", "seat_session_id")
        .annotate(total=Sum("stake"), first_bet=Min("pk"))
        .order_by("bet_type", "-total", "first_bet")
    )
    top: dict[str, dict] = {}
    for row in rows:
        top.setdefault(row["bet_type"], row)
    users = get_user_model().objects.in_bulk([row["user_id"] for row in top.values() if row["user_id"]])
    seats = SeatSession.objects.select_related("seat").in_bulk(
        [row["seat_session_id"] for row in top.values() if row["seat_session_id"]]
    )
    return {
        hand: (users.get(top[hand]["user_id"]) or seats.get(top[hand]["seat_session_id"])) if hand in top else None
        for hand in (PLAYER, BANKER)
    }


def coup_bettor_count(*, coup: Coup) -> int:
    """How many customers (online players and seated patrons) have bets standing on the coup."""
    bets = Bet.objects.filter(coup=coup, state=Bet.State.ACCEPTED)
    return len(set(bets.values_list("user_id", "seat_session_id")))


def coup_online_bettor_counts(*, coup_ids: Iterable[int]) -> dict[int, int]:
    """How many online players bet on each coup, by coup id, whatever became of their bets since (settled,
    refunded), but bets undone or removed (a seated patron's chips are no online bettor's): one query."""
    rows = (
        Bet.objects.filter(coup_id__in=coup_ids, user_id__isnull=False)
        .exclude(state=Bet.State.CANCELLED)
        .values("coup_id")
        .annotate(bettors=Count("user_id", distinct=True))
        .order_by()
    )
    return {row["coup_id"]: row["bettors"] for row in rows}


def live_coup_bettor_counts(*, table_ids: Iterable[int]) -> dict[int, int]:
    """How many players have bets standing on each table's live coup, by table id (none: no one): one query."""
    rows = (
        Bet.objects.filter(coup__table_id__in=table_ids, coup__state__in=Coup.LIVE_STATES, state=Bet.State.ACCEPTED)
        .values("coup__table_id")
        .annotate(bettors=Count("user_id", distinct=True))
        .order_by()
    )
    return {row["coup__table_id"]: row["bettors"] for row in rows}


def wallet_balance(*, user: User) -> Decimal:
    balance = Account.objects.filter(kind=Account.Kind.PLAYER, user=user).values_list("balance", flat=True).first()
    return money(balance)


def player_bets(*, user: User, table: Table | None = None, round_id: str | None = None) -> QuerySet[Bet]:
    bets = Bet.objects.filter(user=user).select_related("coup__table", "settlement")
    if table is not None:
        bets = bets.filter(coup__table=table)
    if round_id is not None:
        bets = bets.filter(coup__round_id=round_id)
    return bets.order_by("-coup_id", "pk")


@dataclass(frozen=True)
class RoundRecall:
    """A player's round for game recall and disputes: the coup as players see it, the bets and the balance
    around them (all in ``currency``, the stakes'); no balance when a partner's seamless wallet holds it."""

    round_id: str
    table_code: str
    table_name: str
    coup_state: str
    played_at: datetime  # when the result was recorded, or the coup voided; else when it opened
    winner: str
    player_total: int | None
    banker_total: int | None
    cards: list[dict]  # as ``tables.selectors.coup_public`` has them
    currency: str
    bets: list[dict]
    staked: Decimal
    returned: Decimal
    balance_before: Decimal | None
    balance_after: Decimal | None


def player_round_history(*, user: User, table: Table | None = None, limit: int = 50) -> list[RoundRecall]:
    """The player's latest rounds, newest first (bets by round id, balance before the first bet and after):
    four queries whatever the number of rounds."""
    bets = list(
        player_bets(user=user, table=table)
        .filter(coup_id__in=_latest_coup_ids(user, table, limit))
        .select_related("coup__shoe", "stake_account")
        .prefetch_related("coup__cards")
    )
    legs: dict[int, list[LedgerEntry]] = {}
    for leg in LedgerEntry.objects.filter(
        account__user=user, transaction__coup_id__in={bet.coup_id for bet in bets}
    ).select_related("transaction"):
        legs.setdefault(leg.transaction.coup_id, []).append(leg)
    rounds: dict[int, list[Bet]] = {}
    for bet in bets:
        rounds.setdefault(bet.coup_id, []).append(bet)
    return [
        _round_recall(coup_bets_, sorted(legs.get(coup_id, ()), key=lambda leg: leg.pk))
        for coup_id, coup_bets_ in rounds.items()
    ]


def _latest_coup_ids(user: User, table: Table | None, limit: int) -> list[int]:
    bets = Bet.objects.filter(user=user)
    if table is not None:
        bets = bets.filter(coup__table=table)
    return list(bets.order_by("-coup_id").values_list("coup_id", flat=True).distinct()[:limit])


def _round_recall(bets: list[Bet], legs: list[LedgerEntry]) -> RoundRecall:
    coup = bets[0].coup
    live = [bet for bet in bets if bet.state != Bet.State.CANCELLED]
    settled = [bet.settlement for bet in live if hasattr(bet, "settlement")]
    return RoundRecall(
        round_id=coup.round_id,
        table_code=coup.table.code,
        table_name=coup.table.name,
        coup_state=coup.state,
        played_at=coup.resolved_at or coup.voided_at or coup.opened_at,
        winner=coup.winner,
        player_total=coup.player_total,
        banker_total=coup.banker_total,
        cards=coup_public(coup=coup)["cards"],
        currency=bets[0].stake_account.currency,
        bets=[
            {
                "bet_type": bet.bet_type,
                "stake": str(bet.stake),
                "state": bet.state,
                "outcome": bet.settlement.outcome if hasattr(bet, "settlement") else "",
                "returned": str(bet.settlement.returned) if hasattr(bet, "settlement") else "",
            }
            for bet in bets
        ],
        staked=money(sum(bet.stake for bet in live)),
        returned=money(sum(settlement.returned for settlement in settled)),
        balance_before=legs[0].balance_before if legs else None,
        balance_after=legs[-1].balance_after if legs else None,
    )


def coup_has_seated_bets(*, coup_id: int) -> bool:
    return Bet.objects.filter(coup_id=coup_id, seat_session__isnull=False).exists()


def coup_seat_bets(*, coup: Coup) -> dict[int, list[dict]]:
    """The seated patrons' bets standing or settled on the coup, by seat session id: each bet's type, stake,
    and once settled its outcome and what it returned (what the dealer pays the seat)."""
    bets = Bet.objects.filter(coup=coup, seat_session__isnull=False).exclude(state=Bet.State.CANCELLED)
    rows = bets.order_by("pk").values_list(
        "seat_session_id", "bet_type", "stake", "settlement__outcome", "settlement__returned"
    )
    by_seat: dict[int, list[dict]] = defaultdict(list)
    for session_id, bet_type, stake, outcome, returned in rows:
        by_seat[session_id].append(
            {
                "bet_type": bet_type,
                "stake": money(stake),
                "outcome": outcome,
                "returned": None if returned is None else money(returned),
            }
        )
    return dict(by_seat)


def seat_session_has_bets_in_play(*, seat_session: SeatSession) -> bool:
    return Bet.objects.filter(seat_session=seat_session, state=Bet.State.ACCEPTED).exists()
