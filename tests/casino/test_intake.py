"""The bet intake commits a table's requests in groups: each answered only after its batch committed, a
refusal never failing the others, a request sent twice in one batch carried out once."""

import threading
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from casino.players import intake
from casino.players.intake import IntakeRequest, bet_request_submit
from kernel import group_commit
from tests.factories import CoupFactory, TableFactory
from wagering.checks import ledger_check, settlement_check
from wagering.errors import WageringError
from wagering.models import Bet, BetRequest
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)
D = Decimal


@pytest.fixture
def coup(settings):
    settings.BET_INTAKE_GROUP_COMMIT = True
    return CoupFactory(table=TableFactory(code="gc1"), betting_closes_at=timezone.now() + timedelta(minutes=5))


class Batches:
    """The sizes of the batches committed. ``first(request)`` submits a request and returns once its batch
    has started; that batch then waits until ``release()``, so every request sent meanwhile queues for
    the next one."""

    def __init__(self, monkeypatch) -> None:
        self.sizes: list[int] = []
        self.started, self.released = threading.Event(), threading.Event()
        commit = group_commit._batch_commit

        def recorded(table_code, batch):
            if not self.sizes:
                self.started.set()
                self.released.wait(timeout=10)
            self.sizes.append(len(batch))
            commit(table_code, batch)

        monkeypatch.setattr(group_commit, "_batch_commit", recorded)

    def first(self, request: IntakeRequest):
        future = bet_request_submit(request)
        assert self.started.wait(timeout=10)
        return future

    def release(self) -> None:
        self.released.set()


@pytest.fixture
def batches(monkeypatch):
    return Batches(monkeypatch)


def players(count: int) -> list:
    users = [get_user_model().objects.create_user(username=f"p{index}") for index in range(count)]
    for user in users:
        wallet_deposit(user=user, amount=D("100.00"), idempotency_key=uuid.uuid4().hex)
    return users


def test_requests_queued_meanwhile_commit_together_and_each_gets_its_own_answer(coup, batches):
    users = players(6)
    stakes = ["10", "20", "5000", "30", "40", "50"]  # the third is over the table's maximum
    requests = [
        IntakeRequest(user=user, table_code="gc1", kind="bet", bets={"banker": stake}, request_id=f"r-{index}")
        for index, (user, stake) in enumerate(zip(users, stakes, strict=True))
    ]
    futures = [batches.first(requests[0])] + [bet_request_submit(request) for request in requests[1:]]
    again = bet_request_submit(  # the fourth player's request sent twice: in the same batch
        IntakeRequest(user=users[3], table_code="gc1", kind="bet", bets={"banker": "30"}, request_id="r-3")
    )
    batches.release()
    answers = [future.exception(timeout=10) or future.result() for future in futures]
    assert batches.sizes == [1, 6]  # the first alone (it waited), then every request sent meanwhile at once
    refused = answers[2]
    assert isinstance(refused, WageringError) and refused.code == "above_maximum"
    assert [answer.balance for index, answer in enumerate(answers) if index != 2] == [
        "90.00",
        "80.00",
        "70.00",
        "60.00",
        "50.00",
    ]
    assert again.result(timeout=10).as_data() == answers[3].as_data()
    assert wallet_balance(user=users[2]) == D("100.00") and wallet_balance(user=users[3]) == D("70.00")
    assert Bet.objects.count() == 5
    assert BetRequest.objects.filter(accepted=False).get().key == "r-2"  # the refusal, recorded as its answer
    assert ledger_check().ok and settlement_check(finished=False).problems == []


def test_a_request_still_queued_at_the_deadline_is_refused_betting_closed(coup, batches):
    first, late = players(2)
    early = batches.first(IntakeRequest(user=first, table_code="gc1", kind="bet", bets={"player": "10"}))
    queued = bet_request_submit(IntakeRequest(user=late, table_code="gc1", kind="bet", bets={"player": "10"}))
    type(coup).objects.filter(pk=coup.pk).update(betting_closes_at=timezone.now())  # the window closes
    batches.release()
    assert early.exception(timeout=10).code == "betting_closed"
    assert queued.exception(timeout=10).code == "betting_closed"
    assert not Bet.objects.exists() and wallet_balance(user=late) == D("100.00")


def test_a_batch_that_fails_answers_every_request_and_leaves_nothing(coup, batches, monkeypatch):
    first, second = players(2)
    answer = intake.bet_requests_answer_together

    def fails_for_the_second(requests):
        if any(request.user == second for request in requests):
            raise RuntimeError("a bug")
        return answer(requests)

    monkeypatch.setattr(intake, "bet_requests_answer_together", fails_for_the_second)
    alone = batches.first(IntakeRequest(user=first, table_code="gc1", kind="bet", bets={"player": "10"}))
    together = [
        bet_request_submit(IntakeRequest(user=user, table_code="gc1", kind="bet", bets={"player": "10"}))
        for user in (first, second)
    ]
    batches.release()
    assert alone.result(timeout=10).balance == "90.00"
    assert [future.exception(timeout=10).code for future in together] == ["internal_error", "internal_error"]
    assert Bet.objects.count() == 1 and wallet_balance(user=first) == D("90.00")


def test_a_seamless_request_that_fails_is_answered_internal_error_not_raised(db, monkeypatch):
    """A seamless wallet's request is carried out in the caller's thread, outside any batch: a bug there is
    answered as a failed batch is, never raised out of ``bet_request_submit`` (it would close the socket)."""
    (player,) = players(1)

    def a_bug(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(intake, "_carried_out", a_bug)
    future = bet_request_submit(
        IntakeRequest(user=player, table_code="gc1", kind="bet", bets={"player": "10"}), seamless=object()
    )
    assert future.exception(timeout=5).code == "internal_error"
    assert not Bet.objects.exists() and wallet_balance(user=player) == D("100.00")


@pytest.mark.parametrize("next_coup", [False, True], ids=["no_live_coup", "a_new_coup"])
def test_a_request_sent_again_after_its_coup_moved_on_gets_its_first_answer(coup, next_coup):
    """A player's socket dropped as the bet was answered; it reconnects once the coup has moved on and sends the
    request again, naming its round: the first answer comes back, not ``round_changed`` for a bet the books hold.
    Another request for that round, or other bets under the same request_id, are refused as before."""
    [user] = players(1)
    asked = {"user": user, "table_code": "gc1", "kind": "bet", "round_id": coup.round_id, "bets": {"banker": "10"}}
    first = bet_request_submit(IntakeRequest(**asked, request_id="once")).result()
    coup.state = coup.State.RESOLVED
    coup.save(update_fields=["state"])
    if next_coup:
        CoupFactory(table=coup.table, betting_closes_at=timezone.now() + timedelta(minutes=5))

    again = bet_request_submit(IntakeRequest(**asked, request_id="once")).result()
    assert (again.round_id, again.bets, again.balance, again.replayed) == (
        first.round_id,
        first.bets,
        first.balance,
        True,
    )
    with pytest.raises(WageringError) as other_bets:
        bet_request_submit(IntakeRequest(**{**asked, "bets": {"banker": "20"}}, request_id="once")).result()
    assert other_bets.value.code == "idempotency_conflict"
    with pytest.raises(WageringError) as never_sent:
        bet_request_submit(IntakeRequest(**asked, request_id="new")).result()
    assert never_sent.value.code == ("round_changed" if next_coup else "no_live_coup")
    assert Bet.objects.count() == 1 and wallet_balance(user=user) == D("90.00")
    assert ledger_check().ok and settlement_check(finished=False).problems == []
