"""Partners' bets through the table's group commit: a run of them (``partner_bets_place_together``) answers
and records what the same bets one after another do (Idempotency-Keys replayed, conflicting, sent twice in
the run, refusals leaving no record), and the API answers a run's bets as it answers one alone."""

from __future__ import annotations

import threading
import uuid
from decimal import Decimal

import pytest

from kernel import group_commit
from partners.bets import PARTNER_BETS, PartnerBetRequest, partner_bet_batch_place, partner_bets_place_together
from partners.models import PartnerIdempotencyKey
from tests.factories import CoupFactory, TableFactory
from tests.partners.conftest import client_for, partner_make, player_make
from tests.wagering.conftest import postgres_only
from wagering.errors import WageringError
from wagering.models import Bet
from wagering.selectors import wallet_balance

D = Decimal

# (player, Idempotency-Key, bets, round): None for the live coup's round
RUN = [
    ("p-1", "k-1", {"banker": "10"}, None),
    ("p-1", "k-1", {"banker": "10"}, None),  # sent again in the run: the first one's result
    ("p-1", "k-1", {"banker": "20"}, None),  # the same key for another request
    ("p-2", "k-2", {"banker": "5000"}, None),  # over the maximum: refused, no record
    ("p-2", "k-2", {"banker": "5000"}, None),  # ... so refused again
    ("p-2", "no spaces allowed", {"banker": "10"}, None),
    ("p-2", "k-3", {"player": "10"}, "T-OLD"),  # not the round in play
    ("p-3", "k-4", {"player": "600"}, None),  # more than the wallet holds
    ("p-3", "k-0", {"player": "5"}, None),  # recorded by an earlier request: replayed
    ("p-3", "k-5", {"player": "50", "tie": "5"}, None),
]


def answered(*, together: bool, code: str) -> tuple[list, list]:
    partner = partner_make(code)
    table = TableFactory()
    live = CoupFactory(table=table)
    players = {name: player_make(partner, name, balance="500.00") for name in ("p-1", "p-2", "p-3")}
    partner_bet_batch_place(
        partner=partner, player=players["p-3"], table=table, live=live, bets={"player": "5"}, idempotency_key="k-0"
    )
    requests = []
    for name, key, bets, round_id in RUN:
        stakes = {bet_type: str(D(stake).quantize(D("0.01"))) for bet_type, stake in sorted(bets.items())}
        request = {
            "operation": "bet",
            "player_id": name,
            "table": table.code,
            "round_id": round_id or "",
            "bets": stakes,
        }
        requests.append(
            PartnerBetRequest(
                partner=partner,
                player=players[name],
                table=table,
                live=live,
                stakes=stakes,
                round_id=round_id or "",
                key=key,
                request=request,
            )
        )
    if together:
        outcomes = partner_bets_place_together(requests)
    else:
        outcomes = [PARTNER_BETS.carry_out(table.code, [request])[0] for request in requests]
    records = sorted(
        (record.key, {**record.request, "table": None}, record.transaction_id is not None)
        for record in PartnerIdempotencyKey.objects.filter(partner=partner, request__operation="bet")
    )
    live_round = requests[0].table.coups.get(state="betting").round_id
    return [_outcome(outcome, table.code, live_round) for outcome in outcomes], records


def _outcome(outcome, table_code: str, round_id: str) -> tuple:
    if isinstance(outcome, WageringError):
        return ("refused", outcome.code, outcome.message.replace(table_code, "the table").replace(round_id, "live"))
    bets = sorted((bet.bet_type, bet.stake) for bet in outcome.transaction.placed_batch.bets.all())
    return ("placed", outcome.replayed, bets, outcome.placed is not None)


@pytest.mark.django_db
def test_a_run_of_partner_bets_answers_and_records_what_one_by_one_does():
    one_by_one = answered(together=False, code="alone")
    together = answered(together=True, code="together")
    assert [outcome[1] for outcome in one_by_one[0] if outcome[0] == "refused"] == [
        "idempotency_conflict",
        "above_maximum",
        "above_maximum",
        "invalid_idempotency_key",
        "round_not_current",
        "insufficient_funds",
    ]
    for index, (alone, grouped) in enumerate(zip(one_by_one[0], together[0], strict=True)):
        assert grouped == alone, (index, RUN[index])
    assert together[1] == one_by_one[1]


@postgres_only  # API requests in threads of their own: SQLite's shared in-memory test database locks tables
@pytest.mark.django_db(transaction=True)
def test_the_api_answers_bets_committed_together_as_it_answers_one(settings, monkeypatch):
    settings.BET_INTAKE_GROUP_COMMIT = True
    sizes, started, released = [], threading.Event(), threading.Event()
    commit = group_commit._batch_commit

    def held_first(table_code, batch):
        if not sizes:
            started.set()
            released.wait(timeout=10)
        sizes.append(len(batch))
        commit(table_code, batch)

    monkeypatch.setattr(group_commit, "_batch_commit", held_first)
    partner = partner_make("grouped")
    table = TableFactory(code="pg1")
    CoupFactory(table=table)
    names = [f"p-{index}" for index in range(5)]
    for name in names:
        player_make(partner, name, balance="100.00")
    keys = {name: uuid.uuid4().hex for name in names}
    answers = {}

    def place(name: str, stake: str) -> None:
        api = client_for(partner)
        answers[name] = api.post(
            f"/api/v1/players/{name}/bets/",
            {"table": "pg1", "bets": {"player": stake}},
            format="json",
            HTTP_IDEMPOTENCY_KEY=keys[name],
        )

    first = threading.Thread(target=place, args=(names[0], "10"))
    first.start()
    assert started.wait(timeout=10)
    others = [threading.Thread(target=place, args=(name, "500" if name == "p-2" else "10")) for name in names[1:]]
    for thread in others:
        thread.start()
    for _ in range(1000):  # until the four are queued behind the first
        if group_commit._table_queue("pg1").waiting.qsize() == 4:
            break
        threading.Event().wait(0.01)
    released.set()
    for thread in (first, *others):
        thread.join(timeout=20)
    assert sizes == [1, 4]  # the first alone (it waited), the four sent meanwhile together
    assert {name: answer.status_code for name, answer in answers.items()} == {
        "p-0": 201,
        "p-1": 201,
        "p-2": 400,
        "p-3": 201,
        "p-4": 201,
    }
    assert answers["p-2"].json()["error"]["code"] == "insufficient_funds"
    placed = answers["p-3"].json()
    assert placed["balance"] == "90.00" and placed["total"] == "10.00" and placed["bets"][0]["stake"] == "10.00"
    again = client_for(partner).post(
        "/api/v1/players/p-3/bets/",
        {"table": "pg1", "bets": {"player": "10"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY=keys["p-3"],
    )
    assert again.status_code == 201 and again.json()["batch_id"] == placed["batch_id"]
    assert again["Idempotent-Replayed"] == "true"
    assert Bet.objects.count() == 4
    assert all(wallet_balance(user=player.user) == D("90.00") for player in partner.players.exclude(external_id="p-2"))
