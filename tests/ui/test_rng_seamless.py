"""A table dealt on demand for a player whose money a partner's seamless wallet holds (issue 30): each deal is
one debit and one credit (zero for a round lost); refused by the wallet, nothing dealt; no valid answer, or a
refusal after the debit, the debit rolled back; once per request_id (one debit, one coup)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.test import Client

from casino.lifecycle import rng
from partners.models import WalletTransaction
from partners.services import partner_player_create
from partners.wallet_sending import wallet_transaction_attempt
from partners.wallet_settings import partner_wallet_set
from tables.models import Coup, Shoe
from tables.private_coups import private_shoe_idle_close
from tests.partners.conftest import client_for, launch_open, partner_make
from tests.partners.fake_wallet import SECRET, FakeWallet
from tests.ui.test_bet_endpoints import post, refusal
from wagering.checks import ledger_check, settlement_check
from wagering.models import Account, Bet, BetRequest

pytestmark = pytest.mark.django_db
D = Decimal
URL = "/tables/rng5/deal/"


@pytest.fixture
def wallet():
    with FakeWallet({"p-1": "100.00"}) as fake:
        yield fake


@pytest.fixture
def ann(db, wallet):
    partner = partner_wallet_set(
        partner=partner_make("acme"), mode="seamless", wallet_url=wallet.url, wallet_secret=SECRET
    )
    return partner_player_create(partner=partner, external_id="p-1")[0]


@pytest.fixture
def browser(ann, rng_table) -> Client:
    """Ann's browser, her session opened by the partner's launch (so her money is in the partner's wallet)."""
    launch = client_for(ann.partner).post("/api/v1/sessions/", {"player_id": "p-1", "currency": "EUR", "table": "rng5"})
    assert launch.status_code == 201, launch.content
    browser = Client()
    launch_open(browser, launch.json()["launch_url"])
    return browser


@pytest.fixture
def commitment(browser, ann) -> str:
    page = browser.get("/tables/rng5/").content.decode()
    shoe = Shoe.objects.get(player=ann.user)
    assert shoe.commitment in page
    return shoe.commitment


def deal(browser, commitment, capture, request_id, bets=None):
    body = {"commitment": commitment, "request_id": request_id, **({"bets": bets} if bets else {"rebet": True})}
    with capture(execute=True):  # the credit, sent on commit (the wallet queue's task, eager here)
        return post(browser, URL, body)


def kinds_and_states():
    return [(t.kind, t.state) for t in WalletTransaction.objects.order_by("pk")]


def float_balance() -> Decimal:
    return Account.objects.get(kind=Account.Kind.PARTNER_FLOAT, partner_code="acme").balance


def nothing_dealt(ann, wallet, balance="100.00"):
    assert not Coup.objects.filter(player=ann.user).exists() and not Bet.objects.exists()
    assert wallet.balances["p-1"] == D(balance) and float_balance() == 0
    assert ledger_check().ok


def test_the_page_shows_the_partners_balance_and_deals(browser, wallet):
    page = browser.get("/tables/rng5/").content.decode()
    assert "data-balance>100.00<" in page and 'data-action="deal"' in page
    assert "Staff accounts do not play" not in page  # the shoe is made: the player plays
    assert 'data-balance-url="/tables/rng5/bets/"' in page


def test_a_wallet_silent_when_the_page_is_drawn_is_asked_again_by_the_page(browser, ann, wallet, settings):
    cache.delete(f"seamless-balance:{ann.pk}")  # the launch asked it a moment ago
    settings.SEAMLESS_WALLET_DEADLINE_SECONDS = 0.5
    wallet.behaviour, wallet.slow_seconds = "slow", 1.0
    page = browser.get("/tables/rng5/").content.decode()
    assert "data-balance></output>" in page  # blank, never "None" or a balance of ours
    wallet.behaviour = "ok"
    assert browser.get("/tables/rng5/bets/").json()["balance"] == "100.00"  # what the page asks then


def test_a_player_of_our_own_wallet_is_not_sent_to_a_partner(player_client, rng_table):
    page = player_client.get("/tables/rng5/").content.decode()
    assert "data-balance>1000.00<" in page and "data-balance-url" not in page


def test_each_round_is_one_debit_and_one_credit_zero_for_a_loss(
    browser, ann, wallet, commitment, django_capture_on_commit_callbacks
):
    paid = lost = 0
    for n in range(40):  # until a round won and a round lost: the shoe is shuffled at random
        answer = deal(browser, commitment, django_capture_on_commit_callbacks, f"d-{n}", {"player": "2.00"})
        assert answer.status_code == 200, answer.content
        answer = answer.json()
        coup = Coup.objects.get(round_id=answer["round_id"])
        debit, credit = WalletTransaction.objects.filter(coup=coup).order_by("pk")
        assert (debit.kind, debit.state, debit.amount) == ("debit", "acknowledged", D("2.00"))
        assert debit.batch.coup_id == coup.pk and debit.body["round_id"] == coup.round_id
        assert (credit.kind, credit.state, credit.amount) == ("credit", "acknowledged", D(answer["total_returned"]))
        assert credit.body["debit_transaction_ids"] == [str(debit.transaction_id)]
        assert coup.state == Coup.State.SETTLED and coup.player_id == ann.user.pk
        assert answer["balance"] == str(wallet.balances["p-1"]) and answer["currency"] == "EUR"
        paid, lost = paid + (credit.amount > 0), lost + (credit.amount == 0)
        commitment = answer["shoe"]["commitment"]
        if paid and lost:
            break
    assert paid and lost
    rounds = Coup.objects.filter(player=ann.user).count()
    assert WalletTransaction.objects.filter(kind="debit").count() == rounds == n + 1
    assert WalletTransaction.objects.filter(kind="credit").count() == rounds
    returned = sum(WalletTransaction.objects.filter(kind="credit").values_list("amount", flat=True))
    assert wallet.balances["p-1"] == D("100.00") - 2 * rounds + returned
    assert {bet.stake_account.kind for bet in Bet.objects.all()} == {"partner_float"}
    assert Account.objects.get(user=ann.user).balance == 0  # our wallet never held her money
    assert float_balance() == returned - 2 * rounds
    assert ledger_check().ok and settlement_check().problems == []


def test_rebet_and_deal_repeats_the_last_bets_with_one_debit(
    browser, wallet, commitment, django_capture_on_commit_callbacks
):
    first = deal(browser, commitment, django_capture_on_commit_callbacks, "r-1", {"banker": "5.00"}).json()
    again = deal(browser, first["shoe"]["commitment"], django_capture_on_commit_callbacks, "r-2")
    assert again.status_code == 200, again.content
    assert again.json()["bets"] == {"banker": "5.00"}
    assert [t.amount for t in WalletTransaction.objects.filter(kind="debit")] == [D("5.00"), D("5.00")]
    assert WalletTransaction.objects.filter(kind="credit").count() == 2


@pytest.mark.parametrize(
    ("behaviour", "stake", "code"),
    [("ok", "500.00", "insufficient_funds"), ("blocked", "10.00", "wallet_refused")],
    ids=["funds", "blocked"],
)
def test_refused_by_the_wallet_nothing_is_dealt(
    browser, ann, wallet, commitment, behaviour, stake, code, django_capture_on_commit_callbacks
):
    wallet.behaviour = behaviour
    refusal(deal(browser, commitment, django_capture_on_commit_callbacks, "x", {"banker": stake}), 400, code)
    assert kinds_and_states() == [("debit", "refused")] and wallet.operations("rollback") == []
    nothing_dealt(ann, wallet)
    wallet.behaviour = "ok"  # the request_id is free again (nothing was done): sent again, it asks the wallet again
    again = deal(browser, commitment, django_capture_on_commit_callbacks, "x", {"banker": stake})
    assert [kind for kind, _ in kinds_and_states()] == ["debit", "debit"] + (
        ["credit"] if behaviour == "blocked" else []
    )
    assert again.status_code == (200 if behaviour == "blocked" else 400), again.content


@pytest.mark.parametrize("behaviour", ["slow", "fail", "garbage"])
def test_no_valid_answer_rolls_the_debit_back_and_deals_nothing(
    browser, ann, wallet, commitment, settings, behaviour, django_capture_on_commit_callbacks
):
    settings.SEAMLESS_WALLET_DEADLINE_SECONDS = 0.5
    wallet.behaviour, wallet.slow_seconds = behaviour, 1.0
    answer = deal(browser, commitment, django_capture_on_commit_callbacks, "t", {"banker": "40.00"})
    refusal(answer, 503, "wallet_unavailable")
    debit, rollback = WalletTransaction.objects.order_by("pk")
    assert (debit.kind, debit.state, rollback.kind, rollback.rolls_back_id) == ("debit", "failed", "rollback", debit.pk)
    wallet.behaviour = "ok"
    rollback.refresh_from_db()
    if rollback.state != "acknowledged":  # sent on commit while the wallet still failed: sent again (the queue)
        assert wallet_transaction_attempt(pk=rollback.pk)
    nothing_dealt(ann, wallet)


def test_a_refusal_after_the_debit_gives_the_debit_back(
    browser, ann, wallet, commitment, monkeypatch, django_capture_on_commit_callbacks
):
    debit_asked = rng.seamless_debit

    def then_the_shoe_ends(**kwargs):
        taken = debit_asked(**kwargs)
        shoe = Shoe.objects.get(player=ann.user)
        assert private_shoe_idle_close(shoe_id=shoe.pk, idle_for=timedelta(0))  # the idle sweep, meanwhile
        return taken

    monkeypatch.setattr(rng, "seamless_debit", then_the_shoe_ends)
    refusal(
        deal(browser, commitment, django_capture_on_commit_callbacks, "c", {"banker": "10.00"}), 400, "shoe_changed"
    )
    assert kinds_and_states() == [("debit", "acknowledged"), ("rollback", "acknowledged")]
    nothing_dealt(ann, wallet)


def test_a_request_id_sent_again_is_one_debit_and_one_coup(
    browser, ann, wallet, commitment, monkeypatch, django_capture_on_commit_callbacks
):
    body = {"bets": {"banker": "10.00"}, "commitment": commitment, "request_id": "once"}
    debit_asked, during = rng.seamless_debit, []

    def double_click(**kwargs):  # the same request again while the partner's wallet is asked
        during.append(post(browser, URL, body))
        return debit_asked(**kwargs)

    monkeypatch.setattr(rng, "seamless_debit", double_click)
    first = deal(browser, commitment, django_capture_on_commit_callbacks, "once", {"banker": "10.00"})
    assert first.status_code == 200, first.content
    refusal(during[0], 409, "request_in_progress")
    monkeypatch.setattr(rng, "seamless_debit", debit_asked)
    replayed = post(browser, URL, body)
    assert replayed.json() == {**first.json(), "replayed": True}
    refusal(post(browser, URL, {**body, "bets": {"player": "10.00"}}), 409, "idempotency_conflict")
    assert Coup.objects.filter(player=ann.user).count() == 1
    assert [kind for kind, _ in kinds_and_states()] == ["debit", "credit"]
    assert BetRequest.objects.get(user=ann.user, key="once").accepted
