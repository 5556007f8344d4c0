"""The partner API's deal for a player whose money the partner's seamless wallet holds (issue 30): each deal is
one debit and one credit (zero for a round lost); refused by the wallet or unconfirmed in time (the debit rolled
back), nothing dealt and the Idempotency-Key free again; one key, one debit and one coup (a replay answers the
first deal, another body is a conflict, the same request while the wallet is asked is in progress)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from casino.lifecycle import rng
from partners.models import Partner, PartnerIdempotencyKey, WalletTransaction
from partners.wallet_sending import DEBIT_ORPHANED_SECONDS, wallet_transaction_attempt, wallet_transactions_due
from partners.wallet_settings import partner_wallet_set
from tables.models import Coup
from tests.partners.conftest import client_for, partner_make, player_make
from tests.partners.fake_wallet import SECRET, FakeWallet
from tests.wagering.conftest import postgres_only
from tests.wagering.test_concurrency import all_at_once
from wagering.checks import ledger_check, settlement_check
from wagering.models import Account, Bet, BetRequest

pytestmark = pytest.mark.django_db
D = Decimal
URL = "/api/v1/tables/rng5/deal/"


@pytest.fixture
def wallet():
    with FakeWallet({"s-1": "100.00"}) as fake:
        yield fake


@pytest.fixture
def seamless_api(rng_table, wallet):
    partner = partner_wallet_set(
        partner=partner_make("seam"), mode="seamless", wallet_url=wallet.url, wallet_secret=SECRET
    )
    player_make(partner, "s-1", balance="0")
    return client_for(partner)


@pytest.fixture
def commitment(seamless_api) -> str:
    shoe = seamless_api.get(f"{URL}?player_id=s-1")
    assert shoe.status_code == 200, shoe.content
    return shoe.json()["shoe"]["commitment"]


@pytest.fixture
def deal(seamless_api, django_capture_on_commit_callbacks):
    def post(body: dict, key: str):
        with django_capture_on_commit_callbacks(execute=True):  # the credit, sent on commit (the wallet queue)
            return seamless_api.post(URL, {"player_id": "s-1", **body}, format="json", HTTP_IDEMPOTENCY_KEY=key)

    return post


def error(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def kinds() -> list[tuple[str, str]]:
    return [(t.kind, t.state) for t in WalletTransaction.objects.order_by("pk")]


def nothing_dealt(wallet) -> None:
    assert not Coup.objects.exists() and not Bet.objects.exists() and wallet.balances["s-1"] == D("100.00")
    assert not PartnerIdempotencyKey.objects.exists() and not BetRequest.objects.exists()
    assert ledger_check().ok


def test_each_deal_is_one_debit_and_one_credit_zero_for_a_loss(deal, wallet, commitment):
    paid = lost = 0
    for n in range(40):  # until a round won and a round lost: the shoe is shuffled at random
        answer = deal({"bets": {"player": "2.00"}, "commitment": commitment}, f"d-{n}")
        assert answer.status_code == 201 and "Idempotent-Replayed" not in answer, answer.content
        answer = answer.json()
        coup = Coup.objects.get(round_id=answer["round_id"])
        debit, credit = WalletTransaction.objects.filter(coup=coup).order_by("pk")
        assert (debit.kind, debit.state, debit.amount) == ("debit", "acknowledged", D("2.00"))
        assert (credit.kind, credit.state, credit.amount) == ("credit", "acknowledged", D(answer["total_returned"]))
        assert credit.body["debit_transaction_ids"] == [str(debit.transaction_id)]
        assert coup.state == Coup.State.SETTLED
        assert answer["balance"] == str(wallet.balances["s-1"]) and answer["currency"] == "EUR"
        assert PartnerIdempotencyKey.objects.get(key=f"d-{n}").transaction == debit.batch.placement
        paid, lost = paid + (credit.amount > 0), lost + (credit.amount == 0)
        commitment = answer["shoe"]["commitment"]
        if paid and lost:
            break
    assert paid and lost
    rounds = Coup.objects.count()
    assert rounds == n + 1 and WalletTransaction.objects.filter(kind="debit").count() == rounds
    assert WalletTransaction.objects.filter(kind="credit").count() == rounds
    returned = sum(WalletTransaction.objects.filter(kind="credit").values_list("amount", flat=True))
    assert wallet.balances["s-1"] == D("100.00") - 2 * rounds + returned
    assert {bet.stake_account.kind for bet in Bet.objects.all()} == {"partner_float"}
    assert ledger_check().ok and settlement_check().problems == []


def test_rebet_and_deal_is_one_more_debit(deal, commitment):
    first = deal({"bets": {"banker": "5.00"}, "commitment": commitment}, "r-1").json()
    again = deal({"rebet": True, "commitment": first["shoe"]["commitment"]}, "r-2")
    assert again.status_code == 201 and again.json()["bets"] == {"banker": "5.00"}, again.content
    assert [t.amount for t in WalletTransaction.objects.filter(kind="debit")] == [D("5.00"), D("5.00")]
    assert WalletTransaction.objects.filter(kind="credit").count() == 2


@pytest.mark.parametrize(
    ("behaviour", "stake", "code"),
    [("ok", "500.00", "insufficient_funds"), ("blocked", "10.00", "wallet_refused")],
    ids=["funds", "blocked"],
)
def test_refused_by_the_wallet_nothing_is_dealt_and_the_key_is_free(deal, wallet, commitment, behaviour, stake, code):
    wallet.behaviour = behaviour
    assert error(deal({"bets": {"banker": stake}, "commitment": commitment}, "x")) == (400, code)
    assert kinds() == [("debit", "refused")] and wallet.operations("rollback") == []
    nothing_dealt(wallet)
    wallet.behaviour = "ok"
    again = deal({"bets": {"banker": "10.00"}, "commitment": commitment}, "x")  # the key again, another body
    assert again.status_code == 201, again.content
    assert [kind for kind, _ in kinds()] == ["debit", "debit", "credit"]


@pytest.mark.parametrize("behaviour", ["slow", "fail"])
def test_no_answer_in_time_rolls_the_debit_back_and_frees_the_key(deal, wallet, commitment, settings, behaviour):
    settings.SEAMLESS_WALLET_DEADLINE_SECONDS = 0.5
    wallet.behaviour, wallet.slow_seconds = behaviour, 1.0
    assert error(deal({"bets": {"banker": "40.00"}, "commitment": commitment}, "t")) == (503, "wallet_unavailable")
    debit, rollback = WalletTransaction.objects.order_by("pk")
    assert (debit.kind, debit.state, rollback.kind, rollback.rolls_back_id) == ("debit", "failed", "rollback", debit.pk)
    wallet.behaviour = "ok"
    rollback.refresh_from_db()
    if rollback.state != "acknowledged":  # sent on commit while the wallet still failed: sent again (the queue)
        assert wallet_transaction_attempt(pk=rollback.pk)
    nothing_dealt(wallet)
    again = deal({"bets": {"banker": "40.00"}, "commitment": commitment}, "t")
    assert again.status_code == 201, again.content
    assert Coup.objects.count() == 1
    assert WalletTransaction.objects.filter(kind="debit", state="acknowledged").count() == 1


def test_a_deal_slower_than_the_orphan_sweep_is_refused_not_paid_twice(deal, wallet, commitment, monkeypatch):
    """The sweep gives back a debit with no bets after DEBIT_ORPHANED_SECONDS; a deal still on its way then (its
    shoe's lock waited on under load) must not be dealt on that debit: refused, the player's money whole."""
    debit_asked = rng.seamless_debit

    def sweep_meanwhile(**kwargs):
        answer = debit_asked(**kwargs)
        later = timezone.now() + timedelta(seconds=DEBIT_ORPHANED_SECONDS + 1)
        for pk in wallet_transactions_due(now=later):
            assert wallet_transaction_attempt(pk=pk)
        return answer

    monkeypatch.setattr(rng, "seamless_debit", sweep_meanwhile)
    assert error(deal({"bets": {"banker": "5.00"}, "commitment": commitment}, "slow")) == (503, "wallet_unavailable")
    assert kinds() == [("debit", "acknowledged"), ("rollback", "acknowledged")]
    nothing_dealt(wallet)


def test_one_key_is_one_debit_and_one_coup(deal, seamless_api, wallet, commitment, monkeypatch):
    body = {"bets": {"player": "5.00"}, "commitment": commitment}
    debit_asked, during = rng.seamless_debit, []

    def sent_twice(**kwargs):  # the same request again while the partner's wallet is asked
        during.append(seamless_api.post(URL, {"player_id": "s-1", **body}, format="json", HTTP_IDEMPOTENCY_KEY="k"))
        return debit_asked(**kwargs)

    monkeypatch.setattr(rng, "seamless_debit", sent_twice)
    first = deal(body, "k")
    assert first.status_code == 201, first.content
    assert error(during[0]) == (409, "request_in_progress")
    monkeypatch.setattr(rng, "seamless_debit", debit_asked)
    balance = wallet.balances["s-1"]
    replayed = deal({**body, "bets": {"player": "5"}}, "k")  # the same amount
    assert replayed.status_code == 201 and replayed["Idempotent-Replayed"] == "true"
    assert replayed.json() == first.json()
    assert error(deal({**body, "bets": {"player": "6.00"}}, "k")) == (409, "idempotency_conflict")
    assert Coup.objects.count() == 1 and [kind for kind, _ in kinds()] == ["debit", "credit"]
    assert wallet.balances["s-1"] == balance and len(wallet.operations("debit")) == 1

    BetRequest.objects.all().delete()  # the deal's own record forgotten (after BET_REQUEST_RETENTION_HOURS)
    forgotten = deal(body, "k")
    assert error(forgotten) == (409, "idempotency_conflict")
    assert forgotten.json()["error"]["details"]["round_id"] == first.json()["round_id"]
    assert Coup.objects.count() == 1 and len(wallet.operations("debit")) == 1
    assert Account.objects.get(kind=Account.Kind.PARTNER_FLOAT, partner_code="seam").balance == D(
        first.json()["total_returned"]
    ) - D("5.00")


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_the_same_request_at_once_is_one_debit(seamless_api, wallet, commitment):
    clients = [client_for(Partner.objects.get(code="seam")) for _ in range(4)]
    body = {"player_id": "s-1", "bets": {"banker": "5.00"}, "commitment": commitment}
    answers = all_at_once(4, lambda n: clients[n].post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="same"))
    dealt = [answer for answer in answers if answer.status_code == 201]
    first = [answer for answer in dealt if "Idempotent-Replayed" not in answer]
    assert len(first) == 1, [answer.content for answer in answers]
    assert all(answer.json() == first[0].json() for answer in dealt)
    assert all(error(answer) == (409, "request_in_progress") for answer in answers if answer.status_code != 201)
    assert Coup.objects.count() == 1 and len(wallet.operations("debit")) == 1
    assert WalletTransaction.objects.filter(kind="debit").count() == 1


def test_a_deal_refused_by_the_table_frees_its_key(deal, wallet, commitment):
    """shoe_changed is the table's refusal, not the wagering's: the key is given up all the same (docs/api.md)."""
    stale = {"bets": {"banker": "5.00"}, "commitment": "0" * 64}
    assert error(deal(stale, "k1")) == (400, "shoe_changed")
    nothing_dealt(wallet)
    again = deal({**stale, "commitment": commitment}, "k1")
    assert again.status_code == 201, again.content
