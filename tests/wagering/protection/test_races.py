"""Two bets (or two deposits) of one limited player at once, on PostgreSQL: each alone fits the limit, both
together pass it; exactly one is accepted, whatever the interleaving.

The first call is held at a named point of ``wagering.protection.guard`` (a function it looks up when it runs):
before it locked the player's row (the competitor then runs to its end first), or after it has read the losses
or deposits and before it writes (the competitor then waits for the player's row, which the first holds until
it commits). The competitor runs in another thread, on its own connection, at another table's coup, so the
coup's lock never serialises them: only the player's row does (``wagering.protection.guard``)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from decimal import Decimal as D

import pytest
from django.db import connection, transaction

from tests.factories import CoupFactory, TableFactory, UserFactory
from tests.wagering.conftest import fund, postgres_only, waiting_for_a_lock
from wagering.errors import BetRejected, PlayerProtected
from wagering.models import Bet
from wagering.placement import bet_batch_place
from wagering.placement_together import PlacementAsked, bets_place_together
from wagering.protection import guard
from wagering.protection.services import protection_limits_set
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

pytestmark = [postgres_only, pytest.mark.django_db(transaction=True)]
WAIT_SECONDS = 10


class Competing:
    """Hold the first call at the ``nth`` call of ``guard.<point>`` (after it returns), run ``competitor`` in a
    thread until it has finished or waits for a lock, then let the first call go on. ``waited``: whether it
    waited."""

    def __init__(self, monkeypatch, point: str, nth: int, competitor: Callable[[], object]) -> None:
        self.outcome: object = None
        self.waited = False
        self.thread = threading.Thread(target=self._compete, args=(competitor,))
        original, calls = getattr(guard, point), []
        first_caller = threading.get_ident()

        def held(*args, **kwargs):
            result = original(*args, **kwargs)
            if threading.get_ident() == first_caller:
                calls.append(point)
                if len(calls) == nth:
                    self._run_until_done_or_waiting()
            return result

        monkeypatch.setattr(guard, point, held)

    def _run_until_done_or_waiting(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + WAIT_SECONDS
        while self.thread.is_alive():
            if waiting_for_a_lock():
                self.waited = True
                return
            assert time.monotonic() < deadline, "the competing call neither finished nor waited for a lock"
            time.sleep(0.02)

    def _compete(self, competitor: Callable[[], object]) -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute(f"SET lock_timeout = '{WAIT_SECONDS}s'")
            self.outcome = competitor()
        except Exception as error:
            self.outcome = error
        finally:
            connection.close()

    def first(self, call: Callable[[], object]) -> tuple[object, object]:
        """The first call's outcome and the competitor's (an exception for a refusal)."""
        try:
            outcome = call()
        except Exception as error:
            outcome = error
        self.thread.join(timeout=WAIT_SECONDS * 2)
        assert self.thread.ident is not None, "the first call never reached the point"
        assert not self.thread.is_alive()
        return outcome, self.outcome


def code(outcome: object) -> str:
    if isinstance(outcome, list):  # bets_place_together's answers, one placement asked
        [outcome] = outcome
    if isinstance(outcome, Exception):
        assert isinstance(outcome, BetRejected), repr(outcome)
        return outcome.code
    return "ok"


@pytest.fixture
def limited():
    """A player with 1,000 and a daily loss limit of 100."""
    user = UserFactory()
    fund(user, "1000.00")
    protection_limits_set(user=user, limits={"loss_day": D("100")})
    return user


def staked(user) -> D:
    return sum((bet.stake for bet in Bet.objects.filter(user=user)), D(0))


def one_alone(user, stake: str) -> Callable[[], object]:
    coup = CoupFactory(table=TableFactory())
    return lambda: bet_batch_place(user=user, coup=coup, bets={"banker": stake})


def together(user, stake: str) -> Callable[[], object]:
    coup = CoupFactory(table=TableFactory())
    asked = [PlacementAsked(user=user, stakes={"banker": D(stake)}, action="bet_batch_placed")]

    def place():
        with transaction.atomic():  # the group commit's batch transaction
            return bets_place_together(coup=coup, asked=asked)

    return place


# (point, nth call of the first, whether the competitor must wait for the player's row)
SINGLE_POINTS = [
    ("players_protection", 1, False),  # before the first locked the row: the competitor goes first
    ("players_losses", 1, True),  # after the first read the losses under the row's lock, before it writes
]
# The group commit reads the players' protection and losses once before the coup's lock, unlocked, then again
# under it, their rows locked.
TOGETHER_POINTS = [
    ("players_losses", 1, False),  # its read before the coup's lock: the competitor goes first
    ("players_protection", 2, False),  # under the coup's lock, before the row's
    ("players_losses", 2, True),  # after the losses read under the row's lock, before the write
]


@pytest.mark.parametrize(("point", "nth", "waits"), SINGLE_POINTS)
def test_two_bets_at_two_tables_never_both_pass_a_loss_limit(limited, monkeypatch, point, nth, waits):
    race = Competing(monkeypatch, point, nth, one_alone(limited, "60"))
    outcomes = race.first(one_alone(limited, "60"))
    assert sorted(map(code, outcomes)) == ["loss_limit", "ok"]
    assert staked(limited) == D("60.00")
    assert race.waited == waits


@pytest.mark.parametrize(("point", "nth", "waits"), TOGETHER_POINTS)
def test_the_group_commit_against_a_single_bet_never_both_pass(limited, monkeypatch, point, nth, waits):
    race = Competing(monkeypatch, point, nth, one_alone(limited, "60"))
    outcomes = race.first(together(limited, "60"))
    assert sorted(map(code, outcomes)) == ["loss_limit", "ok"]
    assert staked(limited) == D("60.00")
    assert race.waited == waits


@pytest.mark.parametrize(("point", "nth", "waits"), SINGLE_POINTS)
def test_a_single_bet_against_the_group_commit_never_both_pass(limited, monkeypatch, point, nth, waits):
    race = Competing(monkeypatch, point, nth, together(limited, "60"))
    outcomes = race.first(one_alone(limited, "60"))
    assert sorted(map(code, outcomes)) == ["loss_limit", "ok"]
    assert staked(limited) == D("60.00")
    assert race.waited == waits


def test_a_bet_that_fits_beside_the_other_is_not_refused(limited, monkeypatch):
    """The lock serialises, it does not refuse: 60 and 40 both fit under 100."""
    race = Competing(monkeypatch, "players_losses", 1, one_alone(limited, "40"))
    outcomes = race.first(one_alone(limited, "60"))
    assert race.waited and list(map(code, outcomes)) == ["ok", "ok"]
    assert staked(limited) == D("100.00")


@pytest.mark.parametrize(
    ("point", "waits"),
    [
        ("player_protection", False),
        ("player_deposits", True),
    ],  # before the row's lock; after the read, before the write
)
def test_two_deposits_never_both_pass_a_deposit_limit(monkeypatch, point, waits):
    user = UserFactory()
    protection_limits_set(user=user, limits={"deposit_day": D("100")})

    def deposit():
        return wallet_deposit(user=user, amount=D("60"), idempotency_key=uuid.uuid4().hex)

    race = Competing(monkeypatch, point, 1, deposit)
    outcomes = race.first(deposit)
    refusals = [o for o in outcomes if isinstance(o, Exception)]
    assert len(refusals) == 1 and isinstance(refusals[0], PlayerProtected), outcomes
    assert refusals[0].code == "deposit_limit"
    assert wallet_balance(user=user) == D("60.00")
    assert race.waited == waits
