"""A dealer table's chip tray: a shift opens and closes with a count of the tray; in between the pit boss
records fills from the cage and credits back to it, and the dealer each seated patron's buy-in (cash into
the drop box, chips out of the tray). One ledger transaction each, under the table's lock, audited.

While seated bets settle, the tray takes what the patrons lose and pays what they win (``settlement``), so
at any time the tray holds its opening count plus what its account moved since (``chip_reports``)."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from kernel.errors import ErrorCode
from tables.audit import audit_record
from tables.locks import table_locked
from tables.models import SeatSession, Table
from tables.selectors import table_currencies
from wagering.amounts import amount_checked
from wagering.errors import ChipsRefused
from wagering.ledger import ledger_post
from wagering.locks import system_accounts_locked
from wagering.models import Account, Bet, ChipMovement, LedgerTransaction, TrayCount, money
from wagering.protection.guard import seated_player_check

User = AbstractBaseUser

# Each movement's legs: (account debited, account credited).
_LEGS = {
    ChipMovement.Kind.BUY_IN: (Account.Kind.CHIP_TRAY, Account.Kind.DROP_BOX),
    ChipMovement.Kind.FILL: (Account.Kind.CAGE, Account.Kind.CHIP_TRAY),
    ChipMovement.Kind.CREDIT: (Account.Kind.CHIP_TRAY, Account.Kind.CAGE),
}
_TRANSACTION_KINDS = {
    ChipMovement.Kind.BUY_IN: LedgerTransaction.Kind.BUY_IN,
    ChipMovement.Kind.FILL: LedgerTransaction.Kind.FILL,
    ChipMovement.Kind.CREDIT: LedgerTransaction.Kind.CREDIT,
}


@transaction.atomic
def seat_buy_in(*, seat_session: SeatSession, amount: object, actor: User) -> ChipMovement:
    """A seated patron changes cash for chips at the table, in the chips' currency (the session's)."""
    table = table_locked(seat_session.table_id)
    seat_session = SeatSession.objects.select_related("seat").filter(pk=seat_session.pk, ended_at__isnull=True).first()
    if seat_session is None:
        raise ChipsRefused(
            f"that patron is not seated at table {table.code}", code=ErrorCode.NOT_SEATED, details={"table": table.code}
        )
    if seat_session.player_id:  # a known player on a break from play buys no chips
        seated_player_check(user_id=seat_session.player_id, at=timezone.now())
    return _chips_move(
        table=table,
        kind=ChipMovement.Kind.BUY_IN,
        currency=seat_session.currency,
        amount=amount,
        actor=actor,
        seat_session=seat_session,
    )


@transaction.atomic
def tray_fill(*, table: Table, currency: str, amount: object, actor: User) -> ChipMovement:
    """Chips brought from the cage to the table's tray."""
    return _chips_move(
        table=table_locked(table.pk), kind=ChipMovement.Kind.FILL, currency=currency, amount=amount, actor=actor
    )


@transaction.atomic
def tray_credit(*, table: Table, currency: str, amount: object, actor: User) -> ChipMovement:
    """Chips taken from the table's tray back to the cage."""
    table = table_locked(table.pk)
    return _chips_move(table=table, kind=ChipMovement.Kind.CREDIT, currency=currency, amount=amount, actor=actor)


@transaction.atomic
def tray_count(*, table: Table, currency: str, counted: object, actor: User) -> TrayCount:
    """The chips in the tray, counted: it opens the table's shift in the currency, or closes the one open once
    no seated chips are in play in it (their settlement belongs to the shift: ``seated.seat_bets_place``)."""
    table = table_locked(table.pk)
    _currency_check(table, currency)
    counted = amount_checked(counted, error=ChipsRefused, what="the count")
    opening = open_shift(table=table, currency=currency)
    in_play = Bet.objects.filter(  # the chips of the patrons seated now (who leave only once they are settled)
        seat_session__table=table,
        seat_session__ended_at__isnull=True,
        seat_session__currency=currency,
        state=Bet.State.ACCEPTED,
    )
    if opening is not None and in_play.exists():
        raise ChipsRefused(
            f"seated chips are in play at table {table.code}: close the shift once the coup is settled",
            code=ErrorCode.CHIPS_IN_PLAY,
            details={"table": table.code, "currency": currency},
        )
    count = TrayCount.objects.create(
        table=table,
        currency=currency,
        kind=TrayCount.Kind.OPENING if opening is None else TrayCount.Kind.CLOSING,
        counted=counted,
        ledger_balance=_tray_balance(table, currency),
        opening=opening,
        actor=actor,
    )
    audit_record(
        action=f"tray_{count.kind}_count",
        actor=actor,
        table=table,
        obj=count,
        after={"currency": currency, "counted": str(counted), "ledger_balance": str(count.ledger_balance)},
    )
    return count


def open_shift(*, table: Table, currency: str) -> TrayCount | None:
    """The opening count of the table's shift in the currency, if one is open (no closing count yet)."""
    openings = TrayCount.objects.filter(table=table, currency=currency, kind=TrayCount.Kind.OPENING)
    return openings.filter(closing__isnull=True).order_by("-pk").first()


def tray_expected(*, opening: TrayCount, ledger_balance: Decimal) -> Decimal:
    """The chips the tray should hold: its opening count and what its account moved since."""
    return money(opening.counted + ledger_balance - opening.ledger_balance)


def _chips_move(
    *, table: Table, kind: str, currency: str, amount: object, actor: User, seat_session: SeatSession | None = None
) -> ChipMovement:
    _currency_check(table, currency)
    amount = amount_checked(amount, error=ChipsRefused, what=f"the {kind.replace('_', '-')}")
    opening = open_shift(table=table, currency=currency)
    if opening is None:
        raise ChipsRefused(
            f"the tray of table {table.code} has not been counted in {currency}: open the shift with a count first",
            code=ErrorCode.NO_OPEN_SHIFT,
            details={"table": table.code, "currency": currency},
        )
    debited, credited = _LEGS[kind]
    accounts = system_accounts_locked({debited, credited}, currency=currency, table_id=table.pk)  # pk order
    if debited == Account.Kind.CHIP_TRAY:
        in_tray = tray_expected(opening=opening, ledger_balance=accounts[debited].balance)
        if amount > in_tray:
            raise ChipsRefused(
                f"the tray holds {in_tray} {currency}: it cannot give {amount}",
                code=ErrorCode.NOT_ENOUGH_CHIPS,
                details={"in_tray": str(in_tray), "amount": str(amount)},
            )
    movement_transaction = ledger_post(
        kind=_TRANSACTION_KINDS[kind],
        currency=currency,
        wallet_legs={},
        system_legs={debited: -amount, credited: amount},
        actor=actor,
        reason=f"seat {seat_session.seat.number}" if seat_session else "",
        table_id=table.pk,
    )
    movement = ChipMovement.objects.create(
        table=table,
        kind=kind,
        currency=currency,
        amount=amount,
        seat_session=seat_session,
        transaction=movement_transaction,
        actor=actor,
    )
    after = {"currency": currency, "amount": str(amount)}
    if seat_session is not None:
        after.update(seat=seat_session.seat.number, patron=seat_session.patron_name)
    audit_record(action=f"chips_{kind}", actor=actor, table=table, obj=movement, after=after)
    return movement


def _currency_check(table: Table, currency: str) -> None:
    if currency not in table_currencies(table=table):
        raise ChipsRefused(
            f"table {table.code} has no limits in {currency!r}",
            code=ErrorCode.CURRENCY_NOT_OFFERED,
            details={"currency": str(currency)},
        )


def _tray_balance(table: Table, currency: str) -> Decimal:
    """The tray account's balance, locked: the count that reads it must not miss a movement."""
    return system_accounts_locked({Account.Kind.CHIP_TRAY}, currency=currency, table_id=table.pk)[
        Account.Kind.CHIP_TRAY
    ].balance
