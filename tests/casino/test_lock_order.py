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
from django.db import connection, transaction

from casino import lifecycle
from casino.lifecycle import settlement
from casino.lifecycle.settlement import coup_settle
from casino.players.bet_requests import PlayerBetRequest, bet_request_answer, bet_requests_answer_together
from partners.bets import PARTNER_BETS, PartnerBetRequest, partner_bets_place_together
from tables import coups, dealing, voids
from tables.dealing import coup_deal_card
from tables.errors import TableError
from tables.models import Coup, CoupVoidRequest, DealtCard, Shoe
from tables.roles import FLOOR_MANAGER, PIT_BOSS, roles_ensure
from tables.selectors import coup_deal_state
from tables.services import table_create, table_open
from tables.shoes import shoe_prepare, shoe_start
from tests.factories import CoupFactory, TableFactory, UserFactory
from tests.partners.conftest import partner_make, player_make
from tests.wagering.conftest import fund, postgres_only, waiting_for_a_lock
from wagering import placement_together
from wagering.checks import ledger_check, settlement_check
from wagering.models import Bet
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance

pytestmark = [postgres_only, pytest.mark.django_db(transaction=True)]
WAIT_SECONDS = 10


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
def closed_coup(pit_boss) -> Coup:
    """An automatic table's coup with a bet, betting closed, no card dealt yet."""
    table = table_open(table=table_create(code="lk1", name="Locks", actor=pit_boss), actor=pit_boss)
    shoe_start(shoe=shoe_prepare(table=table, actor=pit_boss), actor=pit_boss)
    coup = coups.coup_open(table=table)
    player = UserFactory()
    fund(player, "100.00")
    bet_batch_place(user=player, coup=coup, bets={"banker": "20"})
    return lifecycle.coup_close_betting(coup=coup)


@pytest.fixture
def dealing_coup(closed_coup) -> Coup:
    """The same, its first card dealt."""
    coup_deal_card(coup=closed_coup)
    return Coup.objects.get(pk=closed_coup.pk)


@pytest.fixture
def complete_coup(dealing_coup) -> Coup:
    """The same, every card dealt, the result not yet recorded."""
    while not coup_deal_state(coup=dealing_coup).complete:
        coup_deal_card(coup=dealing_coup)
    return Coup.objects.get(pk=dealing_coup.pk)


def staff_of(role: str, username: str):
    user = UserFactory(username=username, is_staff=True)
    user.groups.add(roles_ensure()[role])
    return user


ORDER_LOST = {"dealing_error": "order_not_restorable", "reason": "cards fell under the shoe"}


@pytest.fixture
def resolved_coup(complete_coup) -> Coup:
    coups.coup_resolve(coup=complete_coup)  # the floor step only: the test settles it itself
    return Coup.objects.get(pk=complete_coup.pk)


def books_balanced() -> None:
    assert ledger_check().ok
    assert settlement_check(finished=False).problems == []


def test_a_shoe_replaced_while_the_first_card_is_dealt_is_refused_after_the_card(monkeypatch, closed_coup, pit_boss):
    race = Interleaving(
        monkeypatch,
        dealing,
        "coup_locked",
        lambda: lifecycle.shoe_replace(table=closed_coup.table, actor=pit_boss, reason="marked cards"),
    )
    dealt, refused = race.first(lambda: coup_deal_card(coup=closed_coup))
    assert isinstance(dealt, DealtCard), dealt
    assert isinstance(refused, TableError) and refused.code == "cards_out", refused
    coup = Coup.objects.get(pk=closed_coup.pk)
    assert coup.state == Coup.State.DEALING and coup.cards.count() == 1
    assert Bet.objects.get(coup=coup).state == Bet.State.ACCEPTED
    assert Shoe.objects.get(pk=coup.shoe_id).state == Shoe.State.IN_PLAY
    books_balanced()


def test_a_first_card_dealt_while_the_shoe_is_replaced_is_refused(monkeypatch, closed_coup, pit_boss):
    race = Interleaving(monkeypatch, lifecycle, "table_locked", lambda: coup_deal_card(coup=closed_coup))
    new_shoe, dealt = race.first(
        lambda: lifecycle.shoe_replace(table=closed_coup.table, actor=pit_boss, reason="marked cards")
    )
    assert isinstance(new_shoe, Shoe), new_shoe
    assert isinstance(dealt, TableError) and "void" in str(dealt), dealt
    coup = Coup.objects.get(pk=closed_coup.pk)
    assert coup.state == Coup.State.VOID and coup.cards.count() == 0
    assert Bet.objects.get(coup=coup).state == Bet.State.REFUNDED
    books_balanced()


def test_a_void_requested_while_the_coup_is_resolved_is_refused(monkeypatch, complete_coup):
    boss = staff_of(PIT_BOSS, "pb")
    race = Interleaving(
        monkeypatch, coups, "coup_locked", lambda: lifecycle.coup_void(coup=complete_coup, actor=boss, **ORDER_LOST)
    )
    resolved, requested = race.first(lambda: coups.coup_resolve(coup=complete_coup))
    assert not isinstance(resolved, Exception), resolved
    assert isinstance(requested, TableError) and requested.code == "result_recorded", requested
    assert Coup.objects.get(pk=complete_coup.pk).state == Coup.State.RESOLVED
    assert not CoupVoidRequest.objects.exists()


def test_a_coup_resolved_while_its_void_is_requested_waits_for_the_decision(monkeypatch, complete_coup):
    boss = staff_of(PIT_BOSS, "pb")
    race = Interleaving(monkeypatch, voids, "coup_locked", lambda: coups.coup_resolve(coup=complete_coup))
    requested, resolved = race.first(lambda: lifecycle.coup_void(coup=complete_coup, actor=boss, **ORDER_LOST))
    assert isinstance(requested, CoupVoidRequest), requested
    assert isinstance(resolved, TableError) and resolved.code == "not_dealing", resolved
    coup = Coup.objects.get(pk=complete_coup.pk)
    assert coup.state == Coup.State.HELD and coup.winner == ""
    assert Bet.objects.get(coup=coup).state == Bet.State.ACCEPTED
    books_balanced()


def test_a_request_approved_twice_at_once_voids_the_coup_once(monkeypatch, complete_coup):
    void_request = lifecycle.coup_void(coup=complete_coup, actor=staff_of(PIT_BOSS, "pb"), **ORDER_LOST)
    first_manager, second_manager = staff_of(FLOOR_MANAGER, "fm1"), staff_of(FLOOR_MANAGER, "fm2")
    race = Interleaving(
        monkeypatch,
        voids,
        "coup_locked",
        lambda: lifecycle.coup_void_request_approve(void_request=void_request, actor=second_manager),
    )
    voided, again = race.first(
        lambda: lifecycle.coup_void_request_approve(void_request=void_request, actor=first_manager)
    )
    assert isinstance(voided, Coup) and voided.state == Coup.State.VOID, voided
    assert isinstance(again, TableError) and again.code == "already_decided", again
    assert CoupVoidRequest.objects.get(pk=void_request.pk).decided_by == first_manager
    assert Bet.objects.get(coup=complete_coup).state == Bet.State.REFUNDED
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
    race = Interleaving(monkeypatch, voids, "coup_locked", lambda: coup_settle(coup_id=resolved_coup.pk))
    voided, settled = race.first(
        lambda: lifecycle.coup_void(coup=resolved_coup, actor=pit_boss, dealing_error="cards_replaced")
    )
    assert isinstance(voided, TableError) and voided.code == "result_recorded", voided
    assert not isinstance(settled, Exception), settled
    coup = Coup.objects.get(pk=resolved_coup.pk)
    assert coup.state == Coup.State.SETTLED and Bet.objects.get(coup=coup).state == Bet.State.SETTLED
    assert Decimal(Bet.objects.get(coup=coup).stake) == Decimal("20.00")
    books_balanced()


def test_a_bet_sent_again_through_another_host_while_its_batch_holds_the_coup_gets_the_batchs_answer(monkeypatch):
    """Its socket closed before the answer, a player sends the bet again (the same request_id) through another web
    host: that host's batch of one claims the request_id only under the coup's lock, so it waits for the first
    batch, then answers what it recorded. Claimed before the lock, the two deadlocked: PostgreSQL cancelled one,
    and the player was told ``database_unavailable`` ("nothing was changed") of a bet the other placed."""
    coup = CoupFactory(table=TableFactory())
    ann, bob = UserFactory(), UserFactory()
    fund(ann, "100.00")
    fund(bob, "100.00")

    def asked(user, request_id: str) -> PlayerBetRequest:
        return PlayerBetRequest(
            user=user,
            seamless=None,
            coup=Coup.objects.get(pk=coup.pk),
            kind="bet",
            bets={"banker": "10"},
            request_id=request_id,
        )

    def batch() -> list:
        with transaction.atomic():
            return bet_requests_answer_together([asked(ann, "ann-1"), asked(bob, "bob-1")])

    race = Interleaving(
        monkeypatch, placement_together, "coup_betting_locked", lambda: bet_request_answer(asked(ann, "ann-1"))
    )
    answers, again = race.first(batch)
    assert not isinstance(answers, Exception), answers
    assert not isinstance(again, Exception), again
    assert again.replayed and not answers[0].replayed
    assert again.bets == answers[0].bets == {"banker": "10.00"}
    assert Bet.objects.filter(coup=coup, user=ann).count() == 1
    assert wallet_balance(user=ann) == Decimal("90.00")
    books_balanced()


def test_a_partners_bet_sent_again_while_its_batch_holds_the_coup_gets_the_batchs_result(monkeypatch):
    """The same for a partner's bet sent again with its Idempotency-Key (``partners.bets``)."""
    partner = partner_make("lk")
    table = TableFactory()
    live = CoupFactory(table=table)
    players = [player_make(partner, name, balance="100.00") for name in ("p-1", "p-2")]

    def asked(player, key: str) -> PartnerBetRequest:
        stakes = {"banker": "10.00"}
        request = {"operation": "bet", "player_id": player.external_id, "table": table.code, "round_id": ""}
        return PartnerBetRequest(
            partner=partner,
            player=player,
            table=table,
            live=Coup.objects.get(pk=live.pk),
            stakes=stakes,
            round_id="",
            key=key,
            request={**request, "bets": stakes},
        )

    def batch() -> list:
        with transaction.atomic():
            return partner_bets_place_together([asked(players[0], "k-1"), asked(players[1], "k-2")])

    race = Interleaving(
        monkeypatch,
        placement_together,
        "coup_betting_locked",
        lambda: PARTNER_BETS.carry_out(table.code, [asked(players[0], "k-1")])[0],
    )
    results, again = race.first(batch)
    assert not isinstance(results, Exception), results
    assert not isinstance(again, Exception), again
    assert again.replayed and not results[0].replayed
    assert again.transaction == results[0].transaction
    assert Bet.objects.filter(coup=live, user=players[0].user).count() == 1
    books_balanced()
