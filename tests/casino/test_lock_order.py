"""The lock order (``tables.locks``, ``wagering.locks``) under real interleavings, on PostgreSQL.

Each test holds one call at a named point, just after it took its first lock, starts the competing call
in another thread, waits until PostgreSQL shows that call waiting for a lock, then lets the first go
on. Both orders of each pair finish without a deadlock, each call either done or refused with its
reason, and the books balanced.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.db import connection, connections

from casino import lifecycle, settlement
from casino.settlement import coup_settle
from tables import coups, dealing
from tables.dealing import coup_deal_card
from tables.errors import TableError
from tables.models import Coup, DealtCard, Shoe
from tables.selectors import coup_deal_state
from tables.services import table_create, table_open
from tables.shoes import shoe_prepare, shoe_start
from tests.factories import UserFactory
from tests.wagering.conftest import fund, postgres_only
from wagering.checks import ledger_check, settlement_check
from wagering.models import Bet
from wagering.placement import bet_batch_place

pytestmark = [postgres_only, pytest.mark.django_db(transaction=True)]
WAIT_SECONDS = 10


def waiting_for_a_lock() -> bool:
    with connections["default"].cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


class Interleaving:
    """Hold the first call at ``point`` (a function its module looks up when it runs), run ``competitor``
    in a thread until it waits for a lock, then let the first call go on."""

    def __init__(self, monkeypatch, module, point: str, competitor: Callable[[], object]) -> None:
        self.outcome: dict[str, object] = {}
        self.thread = threading.Thread(target=self._compete, args=(competitor,))
        original = getattr(module, point)

        def held(*args, **kwargs):
            locked = original(*args, **kwargs)
            if not self.thread.is_alive() and "competitor" not in self.outcome:
                self.thread.start()
                deadline = time.monotonic() + WAIT_SECONDS
                while not waiting_for_a_lock():
                    assert time.monotonic() < deadline, "the competing call never waited for the lock"
                    time.sleep(0.02)
            return locked

        monkeypatch.setattr(module, point, held)

    def _compete(self, competitor: Callable[[], object]) -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute(f"SET lock_timeout = '{WAIT_SECONDS}s'")
            self.outcome["competitor"] = competitor()
        except Exception as error:
            self.outcome["competitor"] = error
        finally:
            connection.close()

    def first(self, call: Callable[[], object]) -> tuple[object, object]:
        try:
            first = call()
        except Exception as error:
            first = error
        self.thread.join(WAIT_SECONDS * 2)
        assert not self.thread.is_alive(), "the competing call is stuck"
        return first, self.outcome["competitor"]


@pytest.fixture
def dealing_coup(pit_boss) -> Coup:
    """An automatic table's coup with a bet, betting closed, its first card dealt."""
    table = table_open(table=table_create(code="lk1", name="Locks", actor=pit_boss), actor=pit_boss)
    shoe_start(shoe=shoe_prepare(table=table, actor=pit_boss), actor=pit_boss)
    coup = coups.coup_open(table=table)
    player = UserFactory()
    fund(player, "100.00")
    bet_batch_place(user=player, coup=coup, bets={"banker": "20"})
    coup = lifecycle.coup_close_betting(coup=coup)
    coup_deal_card(coup=coup)
    return Coup.objects.get(pk=coup.pk)


@pytest.fixture
def resolved_coup(dealing_coup) -> Coup:
    while not coup_deal_state(coup=dealing_coup).complete:
        coup_deal_card(coup=dealing_coup)
    coups.coup_resolve(coup=dealing_coup)  # the floor step only: the test settles it itself
    return Coup.objects.get(pk=dealing_coup.pk)


def books_balanced() -> None:
    assert ledger_check().ok
    assert settlement_check(finished=False).problems == []


def test_a_shoe_replaced_while_a_card_is_dealt_voids_the_coup_after_the_card(monkeypatch, dealing_coup, pit_boss):
    cards_before = DealtCard.objects.filter(coup=dealing_coup).count()
    race = Interleaving(
        monkeypatch,
        dealing,
        "coup_locked",
        lambda: lifecycle.shoe_replace(table=dealing_coup.table, actor=pit_boss, reason="marked cards"),
    )
    dealt, new_shoe = race.first(lambda: coup_deal_card(coup=dealing_coup))
    assert isinstance(dealt, DealtCard) and isinstance(new_shoe, Shoe), (dealt, new_shoe)
    coup = Coup.objects.get(pk=dealing_coup.pk)
    assert coup.state == Coup.State.VOID and coup.cards.count() == cards_before + 1
    assert Bet.objects.get(coup=coup).state == Bet.State.REFUNDED
    assert new_shoe.state == Shoe.State.PREPARED
    books_balanced()


def test_a_card_dealt_while_the_shoe_is_replaced_is_refused(monkeypatch, dealing_coup, pit_boss):
    cards_before = DealtCard.objects.filter(coup=dealing_coup).count()
    race = Interleaving(monkeypatch, lifecycle, "table_locked", lambda: coup_deal_card(coup=dealing_coup))
    new_shoe, dealt = race.first(
        lambda: lifecycle.shoe_replace(table=dealing_coup.table, actor=pit_boss, reason="marked cards")
    )
    assert isinstance(new_shoe, Shoe), new_shoe
    assert isinstance(dealt, TableError) and "void" in str(dealt), dealt
    coup = Coup.objects.get(pk=dealing_coup.pk)
    assert coup.state == Coup.State.VOID and coup.cards.count() == cards_before
    books_balanced()


def test_a_void_asked_while_the_coup_is_settled_is_refused(monkeypatch, resolved_coup, pit_boss):
    race = Interleaving(
        monkeypatch,
        settlement,
        "coup_only_locked",
        lambda: lifecycle.coup_void(coup=resolved_coup, actor=pit_boss, dealing_error="cards_replaced"),
    )
    settled, voided = race.first(lambda: coup_settle(coup_id=resolved_coup.pk))
    assert not isinstance(settled, Exception), settled
    assert isinstance(voided, TableError) and voided.code == "result_recorded", voided
    assert Coup.objects.get(pk=resolved_coup.pk).state == Coup.State.SETTLED
    assert Bet.objects.get(coup=resolved_coup).state == Bet.State.SETTLED
    books_balanced()


def test_a_settlement_while_a_void_is_asked_pays_once_the_void_is_refused(monkeypatch, resolved_coup, pit_boss):
    race = Interleaving(monkeypatch, coups, "coup_locked", lambda: coup_settle(coup_id=resolved_coup.pk))
    voided, settled = race.first(
        lambda: lifecycle.coup_void(coup=resolved_coup, actor=pit_boss, dealing_error="cards_replaced")
    )
    assert isinstance(voided, TableError) and voided.code == "result_recorded", voided
    assert not isinstance(settled, Exception), settled
    coup = Coup.objects.get(pk=resolved_coup.pk)
    assert coup.state == Coup.State.SETTLED and Bet.objects.get(coup=coup).state == Bet.State.SETTLED
    assert Decimal(Bet.objects.get(coup=coup).stake) == Decimal("20.00")
    books_balanced()
