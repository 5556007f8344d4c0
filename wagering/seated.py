"""Seated play at a dealer table: a seated patron's chips on the layout, entered by the dealer, are bets of
the coup like any other: the same rules (``placement.stakes_within_rules``: limits, the patron's marker,
the table-wide maximums and the maximum differential) and the same running totals. They move chips, not
wallets: the stakes come from the table's patrons' chips account and what they return goes back to it,
while what the house wins or pays goes to or from the table's chip tray (``settlement``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from baccarat.coup import BANKER, PLAYER
from kernel.errors import ErrorCode
from tables.audit import audit_record
from tables.locks import coup_locked
from tables.models import Coup, SeatSession
from tables.selectors import coup_rules
from wagering.chips import open_shift
from wagering.errors import BetRejected
from wagering.ledger import ledger_post
from wagering.models import CENT, ZERO, Account, Bet, BetBatch, LedgerTransaction, money
from wagering.placement import (
    bet_stakes_checked,
    bets_changed_events,
    betting_open_check,
    coup_betting_locked,
    stakes_within_rules,
)
from wagering.placement_writers import bettors_joined, placement_audit, stake_totals_move
from wagering.protection.guard import seated_player_check
from wagering.selectors import coup_bet_totals, personal_limit_marker

User = AbstractBaseUser


@dataclass(frozen=True)
class SeatBetsPlaced:
    batch: BetBatch
    bets: list[Bet]
    seat_totals: dict[str, Decimal]  # the patron's stakes on the coup by bet type, these included
    currency: str


@transaction.atomic
def seat_bets_place(
    *,
    coup: Coup,
    seat_session: SeatSession,
    bets: Mapping[str, Decimal | int | str],
    actor: User,
    differential_override: bool = False,
) -> SeatBetsPlaced:
    """The dealer enters a seated patron's chips (bet type -> stake) on the coup taking bets: all accepted,
    or none (``BetRejected``), in the chips' currency (the session's). ``differential_override``: a pit
    boss accepts them past the maximum differential, within their authority (up to twice it; seed 000 §6.1.2
    asks the players to lower their bets first), audited.

    Chips are played only in a shift (the tray counted in their currency, ``chips.tray_count``): the table
    locked with the coup (``tables.locks.coup_locked``) keeps the shift from closing meanwhile."""
    stakes = bet_stakes_checked(bets)
    table = coup_locked(coup).table
    coup_betting_locked(coup)
    # The patron's session after the coup (``tables.locks``): a patron leaving waits for these chips, or they
    # for the patron to have left (then refused).
    seated = SeatSession.objects.select_for_update(of=("self",)).select_related("seat", "player")
    seat_session = seated.filter(pk=seat_session.pk, ended_at__isnull=True, table_id=coup.table_id).first()
    if seat_session is None:
        raise BetRejected(
            f"that patron is not seated at table {coup.table.code}",
            code=ErrorCode.NOT_SEATED,
            details={"table": coup.table.code},
        )
    betting_open_check(coup)
    if seat_session.player_id:  # a known player's break from play holds at the felt too
        seated_player_check(user_id=seat_session.player_id, at=timezone.now())
    currency = seat_session.currency
    if open_shift(table=table, currency=currency) is None:
        raise BetRejected(
            f"no shift is open at table {table.code} in {currency}: a pit boss counts the tray before chips are played",
            code=ErrorCode.NO_OPEN_SHIFT,
            details={"table": table.code, "currency": currency},
        )
    marker = (
        personal_limit_marker(table_id=coup.table_id, user=seat_session.player, at=timezone.now())
        if seat_session.player_id
        else None
    )
    seat_before = seat_bet_totals(coup=coup, seat_session=seat_session)
    table_after, seat_after = stakes_within_rules(
        rules=coup_rules(coup=coup),
        round_id=coup.round_id,
        currency=currency,
        stakes=stakes,
        marker=marker,
        table=coup_bet_totals(coup=coup, currency=currency),
        own=seat_before,
        differential_override=differential_override,
    )
    total = money(sum(stakes.values()))
    placement = ledger_post(
        kind=LedgerTransaction.Kind.BET_PLACEMENT,
        currency=currency,
        wallet_legs={},
        system_legs={Account.Kind.PATRON_CHIPS: -total, Account.Kind.BETS_IN_PLAY: total},
        coup=coup,
        actor=actor,
        reason=f"seat {seat_session.seat.number}",
    )
    patron_chips = placement.entries.get(account__kind=Account.Kind.PATRON_CHIPS).account
    batch = BetBatch.objects.create(coup=coup, seat_session=seat_session, placement=placement)
    placed = Bet.objects.bulk_create(
        Bet(
            batch=batch,
            coup=coup,
            seat_session=seat_session,
            bet_type=bet_type,
            stake=stake,
            stake_account=patron_chips,
        )
        for bet_type, stake in stakes.items()
    )
    joined = bettors_joined(stakes=stakes, before=seat_before)
    stake_totals_move(coup=coup, currency=currency, changes=stakes, bettors=dict.fromkeys(joined, 1))
    audit_record(
        action="seat_bets_placed",
        actor=actor,
        table=coup.table,
        obj=batch,
        after={
            **placement_audit(coup, stakes, None),
            "seat": seat_session.seat.number,
            "patron": seat_session.patron_name,
        },
    )
    if differential_override:
        gap = abs(table_after.get(BANKER, ZERO) - table_after.get(PLAYER, ZERO))
        audit_record(
            action="differential_overridden",
            actor=actor,
            table=coup.table,
            obj=batch,
            after={"round_id": coup.round_id, "seat": seat_session.seat.number, "differential": str(gap)},
            reason="seed 000 §6.1.2: the pit accepted the chips past the maximum differential",
        )
    bets_changed_events(coup=coup, user_id=None, balance=None, own=None, currency=currency, table_totals=table_after)
    return SeatBetsPlaced(batch=batch, bets=placed, seat_totals=seat_after, currency=currency)


def seat_bet_totals(*, coup: Coup, seat_session: SeatSession) -> dict[str, Decimal]:
    """The seated patron's stakes standing on the coup, by bet type."""
    rows = Bet.objects.filter(coup=coup, seat_session=seat_session, state=Bet.State.ACCEPTED).values_list("bet_type")
    return {bet_type: money(total) for bet_type, total in rows.annotate(total=Sum("stake")).order_by()}


@dataclass(frozen=True)
class Reduction:
    """Seed 000 §6.1.2: every seat's stake on the heavier hand, now (the chips being entered included) and
    reduced in the same proportion so that the table is back within its maximum differential."""

    hand: str
    over_by: Decimal
    currency: str
    stakes: dict[int, tuple[Decimal, Decimal]]  # seat session id -> (stake now, reduced)


def differential_reduction(
    *, coup: Coup, seat_session: SeatSession, bets: Mapping[str, Decimal | int | str]
) -> Reduction | None:
    """The proportional reduction that would let a seat's chips in (``bets``) within the maximum differential;
    None when they fit, or when the seats' stakes alone cannot make room (online bets are the players' own)."""
    stakes = bet_stakes_checked(bets)
    currency = seat_session.currency
    limits = coup_rules(coup=coup).currencies.get(currency)
    if limits is None:
        return None
    totals = coup_bet_totals(coup=coup, currency=currency)
    player = totals.get(PLAYER, ZERO) + stakes.get(PLAYER, ZERO)
    banker = totals.get(BANKER, ZERO) + stakes.get(BANKER, ZERO)
    over_by = abs(banker - player) - limits.max_differential
    hand = BANKER if banker > player else PLAYER
    seated = _seated_on(coup=coup, hand=hand, currency=currency)
    seated[seat_session.pk] += stakes.get(hand, ZERO)
    reducible = sum(seated.values(), ZERO)
    if over_by <= 0 or not stakes.get(hand) or over_by >= reducible:
        return None
    factor = (reducible - over_by) / reducible
    return Reduction(
        hand=hand,
        over_by=over_by,
        currency=currency,
        stakes={
            session_id: (stake, (stake * factor).quantize(CENT, rounding=ROUND_DOWN))
            for session_id, stake in seated.items()
            if stake
        },
    )


@transaction.atomic
def seat_bets_reduce(
    *, coup: Coup, seat_session: SeatSession, bets: Mapping[str, Decimal | int | str], actor: User
) -> Reduction:
    """Apply the reduction (seed 000 §6.1.2): every seat's chips on the heavier hand are taken back and placed
    again reduced, the entry's too, in one transaction (``BetRejected`` if a reduced stake breaks a rule,
    such as the table's minimum: then nothing changes)."""
    stakes = bet_stakes_checked(bets)
    coup_locked(coup)  # the table first, as ``seat_bets_place`` takes it
    coup_betting_locked(coup)
    betting_open_check(coup)
    reduction = differential_reduction(coup=coup, seat_session=seat_session, bets=stakes)
    if reduction is None:
        raise BetRejected(
            "these chips need no reduction, or the seats alone cannot make room", code=ErrorCode.NO_REDUCTION
        )
    taken = Bet.objects.filter(
        coup=coup,
        seat_session__isnull=False,
        bet_type=reduction.hand,
        state=Bet.State.ACCEPTED,
        stake_account__currency=reduction.currency,
    )
    taken_stakes = list(taken.values_list("seat_session_id", "stake"))
    taken_total = money(sum((stake for _, stake in taken_stakes), ZERO))
    if taken_total:
        ledger_post(
            kind=LedgerTransaction.Kind.BET_CANCEL,
            currency=reduction.currency,
            wallet_legs={},
            system_legs={Account.Kind.BETS_IN_PLAY: -taken_total, Account.Kind.PATRON_CHIPS: taken_total},
            coup=coup,
            actor=actor,
            reason="seed 000 §6.1.2: proportional reduction",
        )
        taken.update(state=Bet.State.CANCELLED)
        stake_totals_move(
            coup=coup,
            currency=reduction.currency,
            changes={reduction.hand: -taken_total},
            bettors={reduction.hand: -len({session_id for session_id, _ in taken_stakes})},
        )
    sessions = SeatSession.objects.select_related("seat", "player").in_bulk(reduction.stakes)
    for session_id, (_, reduced) in reduction.stakes.items():
        placing = {**(stakes if session_id == seat_session.pk else {}), reduction.hand: reduced}
        placing = {bet_type: stake for bet_type, stake in placing.items() if stake}
        if placing:
            seat_bets_place(coup=coup, seat_session=sessions[session_id], bets=placing, actor=actor)
    audit_record(
        action="seat_bets_reduced",
        actor=actor,
        table=coup.table,
        obj=coup,
        after={
            "hand": reduction.hand,
            "over_by": str(reduction.over_by),
            "seats": {
                str(sessions[session_id].seat.number): [str(now), str(reduced)]
                for session_id, (now, reduced) in reduction.stakes.items()
            },
        },
        reason="seed 000 §6.1.2",
    )
    return reduction


def _seated_on(*, coup: Coup, hand: str, currency: str) -> defaultdict[int, Decimal]:
    """Each seat session's stake standing on the hand, in the currency."""
    rows = (
        Bet.objects.filter(
            coup=coup,
            seat_session__isnull=False,
            bet_type=hand,
            state=Bet.State.ACCEPTED,
            stake_account__currency=currency,
        )
        .values_list("seat_session_id")
        .annotate(total=Sum("stake"))
        .order_by()
    )
    seated: defaultdict[int, Decimal] = defaultdict(lambda: ZERO)
    for session_id, total in rows:
        seated[session_id] = money(total)
    return seated
