"""Bets in play are held per table, and a placement costs a bounded number of queries."""

import json
import uuid
from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client

from casino import lifecycle
from casino.lifecycle.settlement import coup_settle
from tests.factories import CoupFactory, TableFactory, UserFactory, coup_deal_and_resolve
from tests.partners.conftest import client_for, partner_make, player_make
from tests.wagering.conftest import fund
from wagering.cancellation import bet_batch_undo, bet_remove_all
from wagering.checks import ledger_check
from wagering.models import Account, Bet
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance

D = Decimal
PLAYER_NATURAL_9 = "9S 2H KD 3C"  # player wins
# A placement's queries: the coup lock, the player's protection (wagering.protection: one row by its key), then
# one statement for the wallet's currency (the limits, totals and accounts are the currency's), the markers, the
# table's totals and bettors (its ``bet_totals``, counted after the write from those read under the lock) and the
# player's open stakes on every coup (what they could win must fit the wallet); then on PostgreSQL one statement
# for the wallet, the ledger, the batch, its bets, the running totals and the audit row (elsewhere: wallet,
# transaction, system account, entries, balances, batch, bets, totals, audit, one by one), and the savepoint or
# BEGIN/COMMIT around them.
SERVICE_QUERIES = 6 if connection.vendor == "postgresql" else 14
# the table with its live coup (read once: handed to the intake; the session and the player's user row are kept
# in the cache); then the intake's batch (casino.players.intake): its savepoint pair (the answer: from the
# service).
UI_QUERIES = SERVICE_QUERIES + 3
# the table with its live coup (read once: handed to the batch; the key, its partner and the player are kept a
# few seconds), the coup's lock before the idempotency record (the record is claimed under it: a batch holding the
# lock records its keys, wagering.idempotency), the record (claimed, then linked to its transaction; the answer's
# transaction is the placement's own, not read back);
# the group commit's batch (kernel.group_commit): BEGIN/COMMIT, and the key's savepoint pair inside it
PARTNER_QUERIES = SERVICE_QUERIES + 8


def bets_in_play(table) -> Decimal:
    return Account.objects.get(kind=Account.Kind.BETS_IN_PLAY, table=table).balance


def accepted_stakes(table) -> Decimal:
    return sum(Bet.objects.filter(coup__table=table, state=Bet.State.ACCEPTED).values_list("stake", flat=True), D(0))


@pytest.fixture
def tables(db):
    return TableFactory(code="pb1"), TableFactory(code="pb2")


@pytest.fixture
def players(db):
    users = [UserFactory() for _ in range(2)]
    for user in users:
        fund(user, "1000.00")
    return users


def test_each_table_holds_its_own_bets_in_play(tables, players):
    coups = [CoupFactory(table=table) for table in tables]
    bet_batch_place(user=players[0], coup=coups[0], bets={"player": "100", "tie": "10"})
    bet_batch_place(user=players[1], coup=coups[0], bets={"banker": "40"})
    bet_batch_place(user=players[0], coup=coups[1], bets={"banker": "25"})
    assert (bets_in_play(tables[0]), bets_in_play(tables[1])) == (D("150.00"), D("25.00"))
    assert not Account.objects.filter(kind=Account.Kind.BETS_IN_PLAY, table__isnull=True).exists()

    bet_batch_undo(user=players[1], coup=coups[0])
    assert (bets_in_play(tables[0]), bets_in_play(tables[1])) == (D("110.00"), D("25.00"))

    coup_deal_and_resolve(coups[0], PLAYER_NATURAL_9)
    coup_settle(coup_id=coups[0].pk)
    assert (bets_in_play(tables[0]), bets_in_play(tables[1])) == (D("0.00"), D("25.00"))
    assert Account.objects.get(kind=Account.Kind.HOUSE).balance == D("-90.00")  # paid 200 for 100 + 10 lost

    lifecycle.coup_void(coup=coups[1], actor=None, reason="test")
    assert (bets_in_play(tables[0]), bets_in_play(tables[1])) == (D("0.00"), D("0.00"))
    assert wallet_balance(user=players[0]) == D("1090.00") and wallet_balance(user=players[1]) == D("1000.00")
    assert ledger_check().ok


def test_every_table_account_equals_its_accepted_stakes(tables, players):
    for table in tables:
        coup = CoupFactory(table=table)
        for user in players:
            bet_batch_place(user=user, coup=coup, bets={"player": "12.50"})
    bet_remove_all(user=players[0], coup=coup)
    for table in tables:
        assert bets_in_play(table) == accepted_stakes(table)
    assert (bets_in_play(tables[0]), bets_in_play(tables[1])) == (D("25.00"), D("12.50"))


ONE_BET = {"player": "10"}
FOUR_BETS = {"player": "10", "tie": "5", "player_pair": "5", "banker_pair": "5"}


@pytest.mark.parametrize("bets", [ONE_BET, FOUR_BETS])
def test_a_placement_costs_the_same_queries_however_many_bets_and_players(
    tables, players, bets, django_assert_max_num_queries
):
    coup = CoupFactory(table=tables[0])
    for _ in range(3):
        bet_batch_place(user=players[1], coup=coup, bets={"banker": "10"})
    bet_batch_place(user=players[0], coup=coup, bets={"player": "10"})
    with django_assert_max_num_queries(SERVICE_QUERIES):
        bet_batch_place(user=players[0], coup=coup, bets=bets)


def test_open_bets_at_another_table_cost_one_query_more(tables, players, django_assert_max_num_queries):
    """Their coup's paytables bound what they could win: its rules are read with one query."""
    coups = [CoupFactory(table=table) for table in tables]
    bet_batch_place(user=players[0], coup=coups[1], bets={"tie": "10"})
    bet_batch_place(user=players[0], coup=coups[0], bets={"player": "10"})
    with django_assert_max_num_queries(SERVICE_QUERIES + 1):
        bet_batch_place(user=players[0], coup=coups[0], bets={"player": "10"})


def test_the_ui_endpoint_costs_a_bounded_number_of_queries(tables, players, django_assert_max_num_queries):
    coup = CoupFactory(table=tables[0])
    client = Client()
    client.force_login(players[0])
    body = json.dumps({"bets": {"player": "10"}, "round_id": coup.round_id})
    client.post("/tables/pb1/bets/", body, content_type="application/json")
    with django_assert_max_num_queries(UI_QUERIES):
        response = client.post("/tables/pb1/bets/", body, content_type="application/json")
    assert response.status_code == 200
    assert response.json()["bets"] == {"player": "20.00"}


def test_the_partner_endpoint_costs_a_bounded_number_of_queries(tables, django_assert_max_num_queries):
    CoupFactory(table=tables[0])
    partner = partner_make("acme")
    api = client_for(partner)
    player_make(partner)

    def place():
        return api.post(
            "/api/v1/players/p-1/bets/",
            {"table": "pb1", "bets": {"banker": "10"}},
            format="json",
            HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex,
        )

    place()
    with django_assert_max_num_queries(PARTNER_QUERIES):
        response = place()
    assert response.status_code == 201
    assert response.json()["balance"] == "980.00"
