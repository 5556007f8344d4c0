"""A wallet holds at most MAX_AMOUNT (numeric(14, 2)): a bet is accepted only if the wallet can hold the
most it could bring back, with the player's other open bets; deposits leave that room too. So a win
never takes a wallet past what it holds, and one player's amounts never fail a coup's settlement."""

import json
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from casino.lifecycle.settlement import coup_settle
from kernel.money import MAX_AMOUNT
from partners import services as partner_services
from tables.models import AuditLog, Coup
from tests.factories import CoupFactory, TableFactory, UserFactory, coup_deal_and_resolve
from tests.partners.conftest import client_for, partner_make, player_make
from tests.wagering.conftest import fund
from wagering.checks import ledger_check, settlement_check
from wagering.errors import WalletRejected
from wagering.ledger import ledger_post
from wagering.models import Account, Bet, BetSettlement, LedgerTransaction
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance

D = Decimal
MAX = MAX_AMOUNT
PLAYER_NATURAL_9 = "9S 2H KD 3C"  # player wins
TIE_NATURAL = "8S 8H KD KC"
RICH = MAX - D("500.00")  # a balance 500.00 short of the most a wallet holds


def later():
    return timezone.now() + timedelta(minutes=5)


@pytest.fixture
def tables(db):
    return TableFactory(code="pb1"), TableFactory(code="pb2")


@pytest.fixture
def coups(tables):
    return [CoupFactory(table=table, betting_closes_at=later()) for table in tables]


@pytest.fixture
def rich(db):
    user = UserFactory()
    fund(user, RICH)
    return user


@pytest.fixture
def rich_client(rich):
    client = Client()
    client.force_login(rich)
    return client


def bet(client, bets, table="pb1"):
    return client.post(f"/tables/{table}/bets/", json.dumps({"bets": bets}), content_type="application/json")


def refused_with_balance_limit(response) -> dict:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "balance_limit" and str(MAX) in error["message"]
    return error


def nothing_written(user, balance=RICH) -> None:
    assert wallet_balance(user=user) == balance
    assert not Bet.objects.filter(user=user).exists()
    assert not LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.BET_PLACEMENT).exists()
    assert not AuditLog.objects.filter(action__startswith="bet_").exists()
    assert ledger_check().ok


@pytest.mark.parametrize(
    "bets",
    [
        {"player": "1000"},  # could bring back 2,000: 500 more than the wallet has room for
        {"tie": "100"},  # 8:1: 900 back for 100
        {"player": "300", "player_pair": "20"},  # 600 + 240 back for 320
    ],
)
def test_a_bet_whose_largest_return_could_overflow_the_wallet_is_refused_and_changes_nothing(
    rich_client, rich, coups, bets
):
    error = refused_with_balance_limit(bet(rich_client, bets))
    assert error["details"]["max_balance"] == str(MAX) and D(error["details"]["over_by"]) > 0
    nothing_written(rich)


@pytest.mark.parametrize(("bets", "largest"), [({"player": "500"}, "1000"), ({"tie": "50", "banker": "100"}, "645")])
def test_a_rich_players_bet_that_fits_is_accepted(rich_client, rich, coups, bets, largest):
    response = bet(rich_client, bets)
    assert response.status_code == 200, response.content
    total = sum(D(stake) for stake in bets.values())
    assert wallet_balance(user=rich) == RICH - total
    assert RICH - total + D(largest) <= MAX


def test_the_bound_counts_the_players_earlier_bets_on_the_coup(rich_client, rich, coups):
    assert bet(rich_client, {"player": "400"}).status_code == 200  # 800 back at most: fits
    refused_with_balance_limit(bet(rich_client, {"player": "200"}))  # 1,200 back for 600 staked: 100 too many
    assert wallet_balance(user=rich) == RICH - D("400.00")


def test_the_bound_counts_open_bets_at_other_tables(rich_client, rich, coups):
    assert bet(rich_client, {"player": "300"}, table="pb2").status_code == 200
    error = refused_with_balance_limit(bet(rich_client, {"player": "300"}))  # alone it would fit
    assert error["details"]["open_largest_return"] == "600.00"
    assert wallet_balance(user=rich) == RICH - D("300.00")
    coup_deal_and_resolve(coups[1], TIE_NATURAL)  # the other coup pushes: its bet is no longer open
    coup_settle(coup_id=coups[1].pk)
    assert bet(rich_client, {"player": "300"}).status_code == 200


def test_rebet_is_bounded_too(rich_client, rich, coups):
    assert bet(rich_client, {"tie": "50"}, table="pb2").status_code == 200  # 450 back at most: fits
    coup_deal_and_resolve(coups[1], PLAYER_NATURAL_9)  # the tie loses
    coup_settle(coup_id=coups[1].pk)
    balance = wallet_balance(user=rich)  # 550 below the most: room for ×1 (450 back), not ×2 (900)
    next_coup = CoupFactory(table=coups[1].table, betting_closes_at=later())
    rebet = rich_client.post("/tables/pb2/bets/rebet/", json.dumps({"multiplier": 2}), content_type="application/json")
    refused_with_balance_limit(rebet)
    assert wallet_balance(user=rich) == balance and not Bet.objects.filter(coup=next_coup).exists()
    rebet = rich_client.post("/tables/pb2/bets/rebet/", json.dumps({"multiplier": 1}), content_type="application/json")
    assert rebet.status_code == 200


def test_the_partner_api_is_bounded_too(coups):
    partner = partner_make("acme")
    player = player_make(partner, balance=str(RICH))
    api = client_for(partner)

    def place(bets):
        return api.post(
            "/api/v1/players/p-1/bets/",
            {"table": "pb1", "bets": bets},
            format="json",
            HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex,
        )

    refused_with_balance_limit(place({"player": "1000"}))
    assert wallet_balance(user=player.user) == RICH and not Bet.objects.exists()
    assert place({"player": "250"}).status_code == 201


def test_a_deposit_leaves_room_for_the_open_bets(rich_client, rich, coups):
    assert bet(rich_client, {"player": "300"}).status_code == 200  # 600 back at most; balance 800 below the most
    with pytest.raises(WalletRejected) as refused:
        fund(rich, "250.00")
    assert refused.value.code == "amount_too_large" and refused.value.details["open_largest_return"] == "600.00"
    assert wallet_balance(user=rich) == RICH - D("300.00")
    fund(rich, "200.00")
    assert wallet_balance(user=rich) == RICH - D("100.00")


def test_a_partner_deposit_leaves_room_for_the_open_bets(coups):
    partner = partner_make("acme")
    player = player_make(partner, balance=str(RICH))
    bet_batch_place(user=player.user, coup=coups[0], bets={"tie": "62.50"})  # 562.50 back: no room left
    api = client_for(partner)
    response = api.post("/api/v1/players/p-1/deposits/", {"amount": "0.01"}, HTTP_IDEMPOTENCY_KEY="too-much")
    assert response.status_code == 400 and response.json()["error"]["code"] == "amount_too_large"
    assert wallet_balance(user=player.user) == RICH - D("62.50")
    partner_services.partner_wallet_withdraw(partner=partner, player=player, amount="10.00", idempotency_key="out")
    result = partner_services.partner_wallet_deposit(
        partner=partner, player=player, amount="10.00", idempotency_key="in"
    )
    assert not result.replayed


def partner_funded_players(count: int) -> list:
    """Players with 1,000.00 each from a partner's float (the operator's is nearly spent on the rich one)."""
    partner = partner_make("globex")
    return [player_make(partner, external_id=f"p-{number}").user for number in range(count)]


def test_a_winner_at_the_bound_and_everyone_else_at_the_coup_are_paid(rich, coups):
    """On PostgreSQL a payout past numeric(14, 2) failed the whole settlement, on every retry."""
    others = partner_funded_players(2)
    for user in others:
        bet_batch_place(user=user, coup=coups[0], bets={"player": "100"})
    bet_batch_place(user=rich, coup=coups[0], bets={"player": "500"})  # exactly to the most, if it wins
    coup_deal_and_resolve(coups[0], PLAYER_NATURAL_9)
    coup_settle(coup_id=coups[0].pk)
    coup = Coup.objects.get(pk=coups[0].pk)
    assert coup.state == Coup.State.SETTLED
    assert wallet_balance(user=rich) == MAX
    assert [wallet_balance(user=user) for user in others] == [D("1100.00")] * 2
    assert ledger_check().ok and not settlement_check(finished=False).problems


@pytest.mark.books_broken_on_purpose
def test_a_wallet_full_all_the_same_has_its_payout_withheld_and_everyone_else_is_paid(rich, coups):
    """Should a wallet fill up past the bound (a concurrent placement elsewhere, say), the coup's
    settlement pays everybody else, withholds that payout with an audit row, and is not retried."""
    [other] = partner_funded_players(1)
    bet_batch_place(user=other, coup=coups[0], bets={"player": "100"})
    bet_batch_place(user=rich, coup=coups[0], bets={"player": "500"})
    wallet = Account.objects.get(user=rich)
    ledger_post(  # past the bound, as no service would
        kind=LedgerTransaction.Kind.DEPOSIT,
        currency=wallet.currency,
        wallet_legs={wallet: D("400.00")},
        system_legs={Account.Kind.PARTNER_FLOAT: D("-400.00")},
    )
    coup_deal_and_resolve(coups[0], PLAYER_NATURAL_9)
    coup_settle(coup_id=coups[0].pk)
    assert Coup.objects.get(pk=coups[0].pk).state == Coup.State.SETTLED
    assert wallet_balance(user=other) == D("1100.00")
    assert wallet_balance(user=rich) == MAX - D("600.00")  # unchanged: 1,000 would not fit
    withheld = AuditLog.objects.get(action="settlement_payout_withheld")
    assert withheld.after["withheld"] == "1000.00" and withheld.after["user_id"] == rich.pk
    assert BetSettlement.objects.get(bet__user=rich).returned == D("1000.00")  # what the bet won, still owed
    assert ledger_check().ok
    assert settlement_check(finished=False).problems == [
        f"wallet of user {rich.pk}: {MAX - D('600.00')}, expected {MAX + D('400.00')}"
    ]
    assert coup_settle(coup_id=coups[0].pk) == []  # settled once: nothing retried
