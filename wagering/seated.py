"""Seated play at a dealer table: a seated patron's chips on the layout, entered by the dealer, are bets of
the coup like any other: the same rules (``placement.stakes_within_rules``: limits, the patron's marker,
the table-wide maximums and the maximum differential) and the same running totals. They move chips, not
wallets: the stakes come from the table's patrons' chips account and what they return goes back to it,
while what the house wins or pays goes to or from the table's chip tray (``settlement``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from tables.audit import audit_record
from tables.models import Coup, SeatSession
from tables.selectors import coup_rules
from wagering.errors import BetRejected
from wagering.ledger import ledger_post
from wagering.models import Account, Bet, BetBatch, LedgerTransaction, money
from wagering.placement import (
    bet_stakes_checked,
    bets_changed_events,
    betting_open_check,
    coup_betting_locked,
    stakes_within_rules,
)
from wagering.placement_writers import placement_audit, stake_totals_move
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
    *, coup: Coup, seat_session: SeatSession, bets: Mapping[str, Decimal | int | str], actor: User
) -> SeatBetsPlaced:
    """The dealer enters a seated patron's chips (bet type -> stake) on the coup taking bets: all accepted,
    or none (``BetRejected``), in the chips' currency (the session's)."""
    stakes = bet_stakes_checked(bets)
    seated = SeatSession.objects.select_related("seat", "player").filter(pk=seat_session.pk, ended_at__isnull=True)
    seat_session = seated.filter(table_id=coup.table_id).first()
    if seat_session is None:
        raise BetRejected(
            "not_seated", f"that patron is not seated at table {coup.table.code}", {"table": coup.table.code}
        )
    currency = seat_session.currency
    marker = (
        personal_limit_marker(table_id=coup.table_id, user=seat_session.player, at=timezone.now())
        if seat_session.player_id
        else None
    )
    coup_betting_locked(coup)
    betting_open_check(coup)
    table_after, seat_after = stakes_within_rules(
        rules=coup_rules(coup=coup),
        round_id=coup.round_id,
        currency=currency,
        stakes=stakes,
        marker=marker,
        table=coup_bet_totals(coup=coup, currency=currency),
        own=seat_bet_totals(coup=coup, seat_session=seat_session),
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
    stake_totals_move(coup=coup, currency=currency, changes=stakes)
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
    bets_changed_events(coup=coup, user_id=None, balance=None, currency=currency, table_totals=table_after)
    return SeatBetsPlaced(batch=batch, bets=placed, seat_totals=seat_after, currency=currency)


def seat_bet_totals(*, coup: Coup, seat_session: SeatSession) -> dict[str, Decimal]:
    """The seated patron's stakes standing on the coup, by bet type."""
    rows = Bet.objects.filter(coup=coup, seat_session=seat_session, state=Bet.State.ACCEPTED).values_list("bet_type")
    return {bet_type: money(total) for bet_type, total in rows.annotate(total=Sum("stake")).order_by()}
