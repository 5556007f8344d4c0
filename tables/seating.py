"""Patrons at a dealer table's seats (seed 000 §1.1): seated, moved and unseated by the dealer or the pit,
one transaction each under the table's lock, audited, the table told on commit who sits where.

A patron is a known player (their chips are still theirs to bring: seated play never touches their
wallet) or a guest the dealer names. The name a guest is given stays with staff; players see
"Seat 4 guest", and a known player by their display name (``tables.players``)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from kernel.errors import ErrorCode
from kernel.live import table_event_send
from tables.audit import audit_record
from tables.errors import TableError
from tables.locks import table_locked
from tables.models import Seat, SeatSession, Table
from tables.selectors import table_currencies, table_seats_public
from tables.shoe_holders import shoe_holder_after_leaving, shoe_holder_after_moving, shoe_holder_after_seating

User = AbstractBaseUser
GUEST_NAME_MAX_LENGTH = SeatSession._meta.get_field("guest_name").max_length


@transaction.atomic
def patron_seat(
    *,
    table: Table,
    seat_number: int,
    actor: User,
    player: User | None = None,
    guest_name: str = "",
    currency: str | None = None,
) -> SeatSession:
    """Seat a known ``player`` or a guest named ``guest_name`` (one of the two) at a free seat of a dealer
    table, playing chips in ``currency`` (the table's first, unless named: one it takes bets in)."""
    table = table_locked(table.pk)
    if table.dealing_mode != Table.DealingMode.DEALER:
        raise TableError(f"table {table.code} is dealt by the RNG: it has no seats to sit at", code=ErrorCode.NO_SEATS)
    guest_name = guest_name.strip()
    if (player is None) == (not guest_name):
        raise TableError(
            "seat a known player or name a guest, not both and not neither", code=ErrorCode.PATRON_REQUIRED
        )
    if len(guest_name) > GUEST_NAME_MAX_LENGTH:
        raise TableError(
            f"a guest's name has at most {GUEST_NAME_MAX_LENGTH} characters", code=ErrorCode.GUEST_NAME_TOO_LONG
        )
    if player is not None and (player.is_staff or not player.is_active):
        raise TableError(f"{player.get_username()} is not an active player", code=ErrorCode.NOT_A_PLAYER)
    offered = table_currencies(table=table)
    currency = currency or next(iter(offered), "")
    if currency not in offered:
        raise TableError(
            f"table {table.code} takes bets in {', '.join(offered)}, not in {currency}",
            code=ErrorCode.CURRENCY_NOT_OFFERED,
        )
    seat = _free_seat(table, seat_number)
    if player is not None and SeatSession.objects.filter(player=player, ended_at__isnull=True).exists():
        raise TableError(f"{player.get_username()} is already seated", code=ErrorCode.ALREADY_SEATED)
    session = SeatSession.objects.create(
        table=table,
        seat=seat,
        player=player,
        guest_name=guest_name,
        currency=currency,
        started_at=timezone.now(),
        seated_by=actor,
    )
    audit_record(action="patron_seated", actor=actor, table=table, obj=session, after=_audited(session))
    _seats_changed(table)
    shoe_holder_after_seating(table=table, session=session, actor=actor)
    return session


@transaction.atomic
def patron_move(*, session: SeatSession, seat_number: int, actor: User) -> SeatSession:
    """The patron changes seats at the same table: the session (and its rating) goes with them."""
    table = table_locked(session.table_id)
    session = _open_session(session)
    before = _audited(session)
    session.seat = _free_seat(table, seat_number)
    session.save(update_fields=["seat"])
    audit_record(action="patron_moved", actor=actor, table=table, obj=session, before=before, after=_audited(session))
    _seats_changed(table)
    shoe_holder_after_moving(table=table, session=session, was=before["seat"], actor=actor)
    return session


@transaction.atomic
def patron_unseat(*, session: SeatSession, actor: User, reason: str = "") -> SeatSession:
    """The patron leaves the table: the session ends (``casino.seating`` first checks no chips of theirs
    are in play)."""
    table = table_locked(session.table_id)
    session = _open_session(session)
    shoe_holder_after_leaving(table=table, session=session, actor=actor)
    session.ended_at = timezone.now()
    session.save(update_fields=["ended_at"])
    audit_record(
        action="patron_unseated", actor=actor, table=table, obj=session, after=_audited(session), reason=reason
    )
    _seats_changed(table)
    return session


def _free_seat(table: Table, seat_number: int) -> Seat:
    if type(seat_number) is not int or not 1 <= seat_number <= Seat.SEATS_PER_TABLE:
        raise TableError(f"a table's seats are 1 to {Seat.SEATS_PER_TABLE}", code=ErrorCode.NO_SUCH_SEAT)
    seat = Seat.objects.get(table=table, number=seat_number)
    taken = SeatSession.objects.filter(seat=seat, ended_at__isnull=True).first()
    if taken is not None:
        raise TableError(f"seat {seat_number} is taken by {taken.patron_name}", code=ErrorCode.SEAT_TAKEN)
    return seat


def _open_session(session: SeatSession) -> SeatSession:
    session = SeatSession.objects.select_related("seat", "player").get(pk=session.pk)
    if session.ended_at is not None:
        raise TableError(f"{session.patron_name} has already left the table", code=ErrorCode.NOT_SEATED)
    return session


def _audited(session: SeatSession) -> dict:
    return {
        "seat": session.seat.number,
        "patron": session.patron_name,
        "player_id": session.player_id,
        "currency": session.currency,
    }


def _seats_changed(table: Table) -> None:
    table_event_send(table_code=table.code, event_type="seats", data={"seats": table_seats_public(table=table)})
