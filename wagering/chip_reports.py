"""Reads of seated play: a table's shift (drop, fills, credits, win and hold, seated and online together)
and the ratings of seated patrons, as table-games management systems keep them."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

from django.db.models import F, QuerySet, Sum
from django.utils import timezone

from baccarat.odds import ShoeComposition, analyze
from tables.models import Coup, SeatSession
from tables.selectors import rules_from_snapshot
from wagering.chips import tray_expected
from wagering.models import ZERO, Account, Bet, BetAdjustment, BetSettlement, ChipMovement, TrayCount, money


@dataclass(frozen=True)
class ShiftReport:
    opening: TrayCount
    closing: TrayCount | None  # None: the shift is still open
    drop: Decimal  # buy-ins: cash changed for chips at the table (the day and shoe reports' stakes are not a drop)
    fills: Decimal
    credits: Decimal
    tray_now: Decimal  # what the tray should hold (at the closing count, or now)
    seated_win: Decimal  # the tray's net from seated bets
    online_staked: Decimal
    online_win: Decimal  # the house's net from online bets settled in the shift

    @property
    def count_win(self) -> Decimal | None:
        """The win by the counts, as the pit reports it: drop + closing - opening + credits - fills."""
        if self.closing is None:
            return None
        return money(self.drop + self.closing.counted - self.opening.counted + self.credits - self.fills)

    @property
    def variance(self) -> Decimal | None:
        """Chips counted at closing minus what the tray should hold: zero when nothing went astray."""
        return None if self.closing is None else money(self.closing.counted - self.tray_now)

    @property
    def hold_percent(self) -> Decimal | None:
        """The seated win as a share of the drop."""
        return None if not self.drop else (self.seated_win / self.drop * 100).quantize(Decimal("0.01"))

    @property
    def table_win(self) -> Decimal:
        return money(self.seated_win + self.online_win)


def shift_report(*, opening: TrayCount) -> ShiftReport:
    """The shift opened by ``opening``: to its closing count, or until now."""
    closing = TrayCount.objects.select_related("actor").filter(opening=opening).first()
    until = closing.created_at if closing is not None else timezone.now()
    if closing is not None:
        ledger_balance = closing.ledger_balance
    else:
        tray = Account.objects.filter(kind=Account.Kind.CHIP_TRAY, table=opening.table, currency=opening.currency)
        ledger_balance = tray.values_list("balance", flat=True).first() or ZERO
    movements = ChipMovement.objects.filter(
        table=opening.table, currency=opening.currency, created_at__gt=opening.created_at, created_at__lte=until
    )
    moved = dict(movements.values_list("kind").annotate(total=Sum("amount")).order_by())
    drop, fills, credits = (money(moved.get(kind)) for kind in ChipMovement.Kind.values)
    tray_change = ledger_balance - opening.ledger_balance
    online = BetSettlement.objects.filter(
        bet__coup__table=opening.table,
        bet__user__isnull=False,
        transaction__currency=opening.currency,
        created_at__gt=opening.created_at,
        created_at__lte=until,
    ).aggregate(staked=Sum("bet__stake"), returned=Sum("returned"))
    return ShiftReport(
        opening=opening,
        closing=closing,
        drop=drop,
        fills=fills,
        credits=credits,
        tray_now=tray_expected(opening=opening, ledger_balance=ledger_balance),
        seated_win=money(tray_change + drop - fills + credits),
        online_staked=money(online["staked"]),
        online_win=money(money(online["staked"]) - money(online["returned"])),
    )


@dataclass(frozen=True)
class Rating:
    """A seated patron's session as the pit rates it."""

    session: SeatSession
    minutes: int
    buy_in: Decimal
    hands: int  # coups the patron bet on
    staked: Decimal
    theoretical_win: Decimal  # each stake times the exact house edge of its bet, summed
    actual_win: Decimal  # what the house won from the patron: stakes minus what they returned

    @property
    def average_bet(self) -> Decimal:
        return money(self.staked / self.hands) if self.hands else ZERO


def seat_session_ratings(*, sessions: Iterable[SeatSession], now: datetime | None = None) -> dict[int, Rating]:
    """Each session's rating (by session id), in a fixed number of queries for any number of sessions."""
    sessions = {session.pk: session for session in sessions}
    bets = Bet.objects.filter(seat_session_id__in=sessions).exclude(state=Bet.State.CANCELLED)
    stakes = bets.values_list("seat_session_id", "coup_id", "bet_type").annotate(total=Sum("stake")).order_by()
    rules = dict(Coup.objects.filter(pk__in=bets.values("coup_id")).values_list("pk", "rules"))
    returned = _by_session(
        BetSettlement.objects.filter(bet__in=bets).values_list("bet__seat_session_id").annotate(total=Sum("returned")),
        BetAdjustment.objects.filter(bet__in=bets)
        .values_list("bet__seat_session_id")
        .annotate(total=Sum(F("returned_after") - F("returned_before"))),
    )
    buy_ins = _by_session(
        ChipMovement.objects.filter(seat_session_id__in=sessions, kind=ChipMovement.Kind.BUY_IN)
        .values_list("seat_session_id")
        .annotate(total=Sum("amount"))
    )
    staked: dict[int, Decimal] = defaultdict(lambda: ZERO)
    theoretical: dict[int, Fraction] = defaultdict(Fraction)
    hands: dict[int, set[int]] = defaultdict(set)
    for session_id, coup_id, bet_type, total in stakes:
        staked[session_id] += money(total)
        theoretical[session_id] += (
            Fraction(money(total)) * _house_edges(json.dumps(rules[coup_id], sort_keys=True))[bet_type]
        )
        hands[session_id].add(coup_id)
    now = now or timezone.now()
    return {
        session_id: Rating(
            session=session,
            minutes=int(((session.ended_at or now) - session.started_at).total_seconds() // 60),
            buy_in=buy_ins.get(session_id, ZERO),
            hands=len(hands[session_id]),
            staked=money(staked[session_id]),
            theoretical_win=money(Decimal(theoretical[session_id].numerator) / theoretical[session_id].denominator),
            actual_win=money(staked[session_id] - returned.get(session_id, ZERO)),
        )
        for session_id, session in sessions.items()
    }


def _by_session(*rows: Iterable[tuple[int, Decimal]]) -> Mapping[int, Decimal]:
    summed: dict[int, Decimal] = defaultdict(lambda: ZERO)
    for each in rows:
        for session_id, total in each:
            summed[session_id] += money(total)
    return summed


@lru_cache(maxsize=64)
def _house_edges(rules_json: str) -> dict[str, Fraction]:
    """The exact house edge of each bet a coup's rules offer, from a full shoe (what a rating assumes: the
    patron is not counting cards; the surveillance view follows the cards actually left)."""
    table = rules_from_snapshot(json.loads(rules_json)).table
    analysis = analyze(ShoeComposition.full(table.decks), paytables=table.paytables())
    return {bet: odds.house_edge for bet, odds in analysis.bets.items()}


def shift_openings(
    *, since: date, until: date, table_id: int | None = None, currency: str | None = None
) -> QuerySet[TrayCount]:
    """The shifts opened between the two UTC days (inclusive), latest first: their opening counts, with their
    tables (``shift_report`` of each gives the shift's figures)."""
    openings = TrayCount.objects.filter(
        kind=TrayCount.Kind.OPENING, created_at__date__gte=since, created_at__date__lte=until
    )
    if table_id is not None:
        openings = openings.filter(table_id=table_id)
    if currency:
        openings = openings.filter(currency=currency)
    return openings.select_related("table", "actor").order_by("-created_at", "-pk")


def table_open_shifts(*, table_id: int) -> list[TrayCount]:
    """The table's shifts open now, one per currency counted."""
    openings = TrayCount.objects.filter(table_id=table_id, kind=TrayCount.Kind.OPENING, closing__isnull=True)
    return list(openings.order_by("currency"))
