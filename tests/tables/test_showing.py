"""Who shows each hand (seed 000 §5.1) at a table where seated patrons and online players bet together."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from casino import lifecycle
from tables.errors import TableError
from tables.models import AuditLog, Coup
from tables.seating import patron_seat
from tables.selectors import coup_public, coup_shown_by
from tables.showing import coup_banker_shown_first, coup_hand_shown_by_dealer
from tests.factories import CoupFactory
from tests.wagering.conftest import fund
from wagering.chips import tray_count
from wagering.placement import bet_batch_place
from wagering.seated import seat_bets_place

pytestmark = pytest.mark.django_db


@pytest.fixture
def coup(dealer_table, pit_boss):
    tray_count(table=dealer_table, currency="EUR", counted="10000", actor=pit_boss)  # seated chips need a shift
    return CoupFactory(table=dealer_table)


@pytest.fixture
def online(db):
    player = get_user_model().objects.create_user(username="online_ana")
    fund(player, "1000.00")
    return player


def close(coup: Coup) -> Coup:
    return lifecycle.coup_close_betting(coup=coup)


def test_each_hand_goes_to_its_highest_bettor_seated_or_online(coup, pit_boss, online):
    """Seed 000 §5.1.1, §5.1.2, §5.1.5: one customer per hand, the highest bet on it."""
    small = patron_seat(table=coup.table, seat_number=1, actor=pit_boss, guest_name="small")
    big = patron_seat(table=coup.table, seat_number=3, actor=pit_boss, guest_name="big")
    seat_bets_place(coup=coup, seat_session=small, bets={"player": "50.00"}, actor=pit_boss)
    seat_bets_place(coup=coup, seat_session=big, bets={"player": "200.00"}, actor=pit_boss)
    seat_bets_place(coup=coup, seat_session=small, bets={"player": "100.00"}, actor=pit_boss)  # 150 in all
    bet_batch_place(user=online, coup=coup, bets={"banker": "300.00"})
    coup = close(coup)

    assert (coup.player_shown_by_seat, coup.banker_shown_by) == (big, online)
    assert coup_shown_by(coup=coup) == {"player": "Seat 3", "banker": "on***"}
    assert coup_public(coup=Coup.objects.get(pk=coup.pk))["shown_by"] == {"player": "Seat 3", "banker": "on***"}


def test_an_online_player_outbid_by_a_seat_does_not_show(coup, pit_boss, online):
    seat = patron_seat(table=coup.table, seat_number=5, actor=pit_boss, guest_name="whale")
    bet_batch_place(user=online, coup=coup, bets={"banker": "100.00"})
    seat_bets_place(coup=coup, seat_session=seat, bets={"banker": "100.01"}, actor=pit_boss)
    coup = close(coup)
    assert (coup.banker_shown_by, coup.banker_shown_by_seat) == (None, seat)


def test_nobody_bet_on_a_hand_the_dealer_shows_it(coup, online):
    """Seed 000 §5.1.3."""
    bet_batch_place(user=online, coup=coup, bets={"tie": "10.00"})
    assert coup_shown_by(coup=close(coup)) == {"player": "dealer", "banker": "dealer"}


def test_cards_to_the_wrong_customer_the_dealer_shows_the_hand(coup, pit_boss, online):
    """Seed 000 §5.1.7: the dealer shows that hand, the coup goes on; audited."""
    bet_batch_place(user=online, coup=coup, bets={"banker": "100.00"})
    coup = coup_hand_shown_by_dealer(coup=close(coup), hand="banker", actor=pit_boss)

    assert coup_shown_by(coup=coup)["banker"] == "dealer" and coup.state == Coup.State.NO_MORE_BETS
    audit = AuditLog.objects.get(action="hand_shown_by_dealer")
    assert (audit.before["shown_by"], audit.after["shown_by"]) == ("on***", "dealer")
    with pytest.raises(TableError) as again:
        coup_hand_shown_by_dealer(coup=coup, hand="banker", actor=pit_boss)
    assert again.value.code == "already_the_dealer"


def test_a_lone_customer_may_see_the_banker_first_with_the_pits_permission(coup, pit_boss, online):
    """Seed 000 §5.1.4: only when one customer plays; the order of showing, not of dealing."""
    bet_batch_place(user=online, coup=coup, bets={"banker": "100.00"})
    coup = coup_banker_shown_first(coup=close(coup), actor=pit_boss, lone_customer=True)
    assert coup.banker_shown_first and coup_public(coup=coup)["banker_shown_first"]
    assert AuditLog.objects.filter(action="showing_order_banker_first", actor=pit_boss).count() == 1


@pytest.mark.parametrize(
    ("code", "call", "kwargs"),
    [
        ("not_alone", coup_banker_shown_first, {"lone_customer": False}),
        ("no_such_hand", coup_hand_shown_by_dealer, {"hand": "tie"}),
    ],
)
def test_showing_changes_refused_change_nothing(coup, pit_boss, online, code, call, kwargs):
    bet_batch_place(user=online, coup=coup, bets={"banker": "100.00"})
    coup = close(coup)
    audit = AuditLog.objects.count()
    with pytest.raises(TableError) as refusal:
        call(coup=coup, actor=pit_boss, **kwargs)
    assert refusal.value.code == code
    assert AuditLog.objects.count() == audit
    fresh = Coup.objects.get(pk=coup.pk)
    assert (fresh.banker_shown_first, fresh.banker_shown_by) == (False, online)


def test_who_shows_changes_only_between_no_more_bets_and_the_result(coup, pit_boss):
    with pytest.raises(TableError) as refusal:
        coup_hand_shown_by_dealer(coup=coup, hand="player", actor=pit_boss)  # still betting
    assert refusal.value.code == "not_showing"


def test_each_online_player_who_shows_a_hand_is_told_privately(coup, pit_boss, online, monkeypatch):
    """The public ``shown_by`` names players by display names two may share: the one who shows is told alone."""
    told = []
    monkeypatch.setattr("tables.coups.user_events_send", lambda **event: told.append(event))
    other = get_user_model().objects.create_user(username="online_bo")
    fund(other, "1000.00")
    seat = patron_seat(table=coup.table, seat_number=2, actor=pit_boss, guest_name="whale")
    bet_batch_place(user=online, coup=coup, bets={"banker": "300.00"})
    bet_batch_place(user=other, coup=coup, bets={"player": "100.00", "tie": "50.00"})
    seat_bets_place(coup=coup, seat_session=seat, bets={"banker": "200.00"}, actor=pit_boss)
    close(coup)
    assert told == [
        {
            "event_type": "you_show",
            "data_by_user": {
                online.pk: {"round_id": coup.round_id, "hands": ["banker"]},
                other.pk: {"round_id": coup.round_id, "hands": ["player"]},
            },
        }
    ]


def test_nobody_is_told_when_no_online_player_shows(coup, pit_boss, online, monkeypatch):
    told = []
    monkeypatch.setattr("tables.coups.user_events_send", lambda **event: told.append(event))
    seat = patron_seat(table=coup.table, seat_number=2, actor=pit_boss, guest_name="whale")
    bet_batch_place(user=online, coup=coup, bets={"banker": "100.00"})
    seat_bets_place(coup=coup, seat_session=seat, bets={"banker": "200.00"}, actor=pit_boss)
    close(coup)
    assert told == []
