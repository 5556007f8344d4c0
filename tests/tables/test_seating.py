"""Patrons at a dealer table's ten seats (seed 000 §1.1): seated, moved, unseated, and who sits where as
players see it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tables.errors import TableError
from tables.models import AuditLog, Seat, SeatSession
from tables.seating import patron_move, patron_seat, patron_unseat
from tables.selectors import table_seats_public
from tables.services import player_nickname_set

pytestmark = pytest.mark.django_db


@pytest.fixture
def patron(db):
    return get_user_model().objects.create_user(username="lucia")


def refused(code: str, call, **kwargs) -> None:
    sessions, audit = SeatSession.objects.count(), AuditLog.objects.count()
    with pytest.raises(TableError) as refusal:
        call(**kwargs)
    assert refusal.value.code == code
    assert (SeatSession.objects.count(), AuditLog.objects.count()) == (sessions, audit)


def test_a_known_player_and_a_guest_are_seated_and_players_see_who_sits_where(dealer_table, pit_boss, patron):
    player_nickname_set(user=patron, nickname="Lucia")
    known = patron_seat(table=dealer_table, seat_number=3, actor=pit_boss, player=patron)
    guest = patron_seat(table=dealer_table, seat_number=7, actor=pit_boss, guest_name="Mr Tanaka, red tie")

    assert (known.seat.number, known.currency, known.ended_at) == (3, "EUR", None)
    assert guest.patron_name == "Mr Tanaka, red tie"
    # The name a dealer gives a guest stays with staff: players see the seat.
    assert table_seats_public(table=dealer_table) == [
        {"seat": 3, "patron": "Lucia", "guest": False},
        {"seat": 7, "patron": "Seat 7 guest", "guest": True},
    ]
    seated = AuditLog.objects.filter(action="patron_seated").order_by("pk")
    assert [(row.actor, row.after["seat"], row.after["patron"]) for row in seated] == [
        (pit_boss, 3, "lucia"),
        (pit_boss, 7, "Mr Tanaka, red tie"),
    ]


def test_a_move_keeps_the_session_and_frees_the_seat(dealer_table, pit_boss, patron):
    session = patron_seat(table=dealer_table, seat_number=2, actor=pit_boss, player=patron)
    moved = patron_move(session=session, seat_number=9, actor=pit_boss)

    assert (moved.pk, moved.seat.number) == (session.pk, 9)
    patron_seat(table=dealer_table, seat_number=2, actor=pit_boss, guest_name="newcomer")  # seat 2 is free again
    audit = AuditLog.objects.get(action="patron_moved")
    assert (audit.before["seat"], audit.after["seat"]) == (2, 9)


def test_unseating_ends_the_session_once(dealer_table, pit_boss, patron):
    session = patron_seat(table=dealer_table, seat_number=1, actor=pit_boss, player=patron)
    left = patron_unseat(session=session, actor=pit_boss, reason="went home")

    assert left.ended_at is not None
    assert table_seats_public(table=dealer_table) == []
    refused("not_seated", patron_unseat, session=session, actor=pit_boss)
    refused("not_seated", patron_move, session=session, seat_number=4, actor=pit_boss)
    # The player may sit down again, in a new session.
    again = patron_seat(table=dealer_table, seat_number=1, actor=pit_boss, player=patron)
    assert again.pk != session.pk


def test_a_seat_holds_one_patron_and_a_player_sits_at_one_seat(dealer_table, pit_boss, patron):
    patron_seat(table=dealer_table, seat_number=5, actor=pit_boss, player=patron)

    refused("seat_taken", patron_seat, table=dealer_table, seat_number=5, actor=pit_boss, guest_name="other")
    refused("already_seated", patron_seat, table=dealer_table, seat_number=6, actor=pit_boss, player=patron)
    other = patron_seat(table=dealer_table, seat_number=6, actor=pit_boss, guest_name="other")
    refused("seat_taken", patron_move, session=other, seat_number=5, actor=pit_boss)


@pytest.mark.parametrize(
    ("code", "changes"),
    [
        ("no_such_seat", {"seat_number": 0}),
        ("no_such_seat", {"seat_number": 11}),
        ("no_such_seat", {"seat_number": "3"}),
        ("patron_required", {"guest_name": "  "}),
        ("guest_name_too_long", {"guest_name": "x" * 41}),
        ("currency_not_offered", {"currency": "USD"}),
    ],
)
def test_bad_seating_is_refused_and_changes_nothing(dealer_table, pit_boss, code, changes):
    asked = {"table": dealer_table, "seat_number": 4, "actor": pit_boss, "guest_name": "Ann", **changes}
    refused(code, patron_seat, **asked)


def test_a_player_and_a_guest_at_once_is_refused(dealer_table, pit_boss, patron):
    refused(
        "patron_required",
        patron_seat,
        table=dealer_table,
        seat_number=4,
        actor=pit_boss,
        player=patron,
        guest_name="Ann",
    )


def test_staff_cannot_be_seated_as_patrons(dealer_table, pit_boss):
    refused("not_a_player", patron_seat, table=dealer_table, seat_number=4, actor=pit_boss, player=pit_boss)


def test_an_rng_table_has_no_seats_to_sit_at(auto_table, pit_boss, patron):
    refused("no_seats", patron_seat, table=auto_table, seat_number=4, actor=pit_boss, player=patron)


def test_every_table_has_its_ten_seats(dealer_table):
    assert list(Seat.objects.filter(table=dealer_table).values_list("number", flat=True)) == list(range(1, 11))
