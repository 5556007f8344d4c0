"""A run of bet requests answered together (``bet_requests_answer_together``, the intake's group commit)
answers and records what the same requests one after another (``bet_request_answer``) do: replays,
conflicts, refusals recorded, a request_id sent twice in the run, rebets; and a request_id recorded by
another process meanwhile makes the intake roll back and answer it as a replay."""

from __future__ import annotations

import uuid
from concurrent.futures import Future
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from casino.players import bet_requests, intake
from casino.players.bet_requests import (
    PlayerBetRequest,
    bet_request_answer,
    bet_requests_answer_together,
)
from casino.players.intake import IntakeRequest
from kernel import group_commit
from tests.factories import CoupFactory, TableFactory
from wagering.errors import WageringError
from wagering.models import Bet, BetRequest
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

pytestmark = pytest.mark.django_db
D = Decimal

# (player, kind, request_id, bets or multiplier)
RUN = [
    ("ann", "bet", "a-1", {"banker": "10"}),
    ("ann", "bet", "a-1", {"banker": "10"}),  # sent again: the first one's answer
    ("ann", "bet", "a-1", {"banker": "99"}),  # the same id for another request
    ("bob", "bet", "b-1", {"banker": "5000"}),  # refused, and recorded
    ("bob", "bet", "b-1", {"banker": "5000"}),  # ... so answered the same again
    ("bob", "bet", "x" * 65, {"banker": "10"}),  # no such request_id
    ("bob", "bet", "b-2", "ten"),  # bad bets
    ("cat", "rebet", "c-1", 2),  # her last coup's bets, twice
    ("cat", "rebet", "c-2", True),  # not a multiplier
    ("dan", "bet", "d-0", {"player": "20"}),  # recorded in an earlier transaction: replayed
    ("dan", "bet", None, {"player": "5", "tie": "1"}),
    ("eve", "rebet", None, 1),  # nothing to repeat
]


def answered(*, together: bool) -> tuple[list, list]:
    table = TableFactory()
    earlier = CoupFactory(table=table)
    users = {
        name: get_user_model().objects.create_user(username=f"{name}-{together}")
        for name in ["ann", "bob", "cat", "dan", "eve"]
    }
    for user in users.values():
        wallet_deposit(user=user, amount=D("500.00"), idempotency_key=uuid.uuid4().hex)
    bet_batch_place(user=users["cat"], coup=earlier, bets={"player": "15", "tie": "2"})
    type(earlier).objects.filter(pk=earlier.pk).update(state=type(earlier).State.SETTLED)
    Bet.objects.filter(coup=earlier).update(state=Bet.State.SETTLED)
    coup = CoupFactory(table=table)
    dan_first = PlayerBetRequest(
        user=users["dan"], seamless=None, coup=coup, kind="bet", bets={"player": "20"}, request_id="d-0"
    )
    bet_request_answer(dan_first)
    requests = [
        PlayerBetRequest(
            user=users[name],
            seamless=None,
            coup=coup,
            kind=kind,
            bets=value if kind == "bet" else None,
            multiplier=value if kind == "rebet" else 1,
            request_id=request_id,
        )
        for name, kind, request_id, value in RUN
    ]
    if together:
        answers = bet_requests_answer_together(requests)
    else:
        answers = []
        for request in requests:
            try:
                answers.append(bet_request_answer(request))
            except WageringError as refusal:
                answers.append(refusal)
    names = {user.pk: name for name, user in users.items()}
    records = [
        (names[r.user_id], r.key, r.kind, {**r.request, "round_id": None}, _without_round(r.answer), r.accepted)
        for r in BetRequest.objects.filter(user__in=users.values()).order_by("user_id", "key")
    ]
    return [_answer(answer, coup.round_id) for answer in answers], records


def _without_round(data: dict) -> dict:
    return {key: value for key, value in data.items() if key != "round_id"}


def _answer(answer, round_id: str) -> tuple:
    if isinstance(answer, WageringError):
        return ("refused", answer.code, answer.message.replace(round_id, "the round"), answer.details)
    return ("answered", _without_round(answer.as_data()), answer.replayed)


def test_a_run_together_answers_and_records_what_one_by_one_does():
    one_by_one = answered(together=False)
    together = answered(together=True)
    assert [answer[1] for answer in one_by_one[0] if answer[0] == "refused"] == [
        "idempotency_conflict",
        "above_maximum",
        "above_maximum",
        "invalid_request_id",
        "bad_bets",
        "invalid_multiplier",
        "no_previous_bets",
    ]
    assert [answer[2] for answer in one_by_one[0] if answer[0] == "answered"] == [False, True, False, True, False]
    for index, (alone, grouped) in enumerate(zip(*(one_by_one[0], together[0]), strict=True)):
        assert grouped == alone, (index, RUN[index])
    assert together[1] == one_by_one[1]


def test_a_request_id_recorded_meanwhile_by_another_process_is_answered_as_a_replay(monkeypatch):
    """Between the run's look for its request_ids and its records' insert, another process records one of
    them: nothing of the run is kept, and the intake carries the batch out again, answering it a replay."""
    coup = CoupFactory(table=TableFactory(code="km1"))
    ann, bob = (get_user_model().objects.create_user(username=name) for name in ("ann", "bob"))
    for user in (ann, bob):
        wallet_deposit(user=user, amount=D("100.00"), idempotency_key=uuid.uuid4().hex)
    first = PlayerBetRequest(user=ann, seamless=None, coup=coup, kind="bet", bets={"player": "10"}, request_id="k")
    bet_request_answer(first)  # the other process's
    looked, looks = bet_requests._records, []

    def first_look_misses_it(keys):
        looks.append(keys)
        return {} if len(looks) == 1 else looked(keys)

    monkeypatch.setattr(bet_requests, "_records", first_look_misses_it)
    batch = [
        (
            IntakeRequest(user=user, table_code="km1", kind="bet", bets={"player": "10"}, request_id="k"),
            intake.PLAYERS_BETS,
            Future(),
        )
        for user in (ann, bob)
    ]
    group_commit._batch_commit("km1", batch)
    answers = [future.result(timeout=5) for _, _, future in batch]
    assert len(looks) == 2  # the first attempt found the key taken at its insert, and was rolled back
    assert [answer.replayed for answer in answers] == [True, False]
    assert wallet_balance(user=ann) == D("90.00") and wallet_balance(user=bob) == D("90.00")
    assert Bet.objects.count() == 2
