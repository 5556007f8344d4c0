"""Races at a table dealt on demand (issue 30), on PostgreSQL: the competing call is injected at a named point
of the first, once its coup is open and its shoe locked."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from django.db import connection

import casino.lifecycle.rng
from casino.lifecycle.rng import rng_shoe_ready
from tables.models import Coup, Table
from tests.casino.test_rng_deal import deal
from tests.factories import TableFactory
from tests.wagering.conftest import funded, postgres_only, waiting_for_a_lock
from wagering.checks import ledger_check
from wagering.models import Account, Bet, ledger_shard
from wagering.selectors import wallet_balance

pytestmark = [postgres_only, pytest.mark.django_db(transaction=True)]


def competing_deal(monkeypatch, *, user, table, bets, request_id, commitment) -> dict:
    """Deal, with a second deal by the same player started while the first holds its shoe and its coup is open
    (``private_coup_open``); the second's answer (or refusal) and whether it waited."""
    competing: dict[str, object] = {}
    opened = casino.lifecycle.rng.private_coup_open

    def second() -> None:
        try:
            competing["answer"] = deal(user, table, bets, request_id=request_id, commitment=commitment)
        except Exception as error:
            competing["answer"] = error
        finally:
            connection.close()

    def open_then_compete(**kwargs) -> Coup:
        coup = opened(**kwargs)
        if "thread" not in competing:
            thread = threading.Thread(target=second)
            thread.start()
            for _ in range(100):
                if waiting_for_a_lock():
                    break
                thread.join(timeout=0.02)
            competing["waited"] = thread.is_alive()
            competing["thread"] = thread
        return coup

    monkeypatch.setattr(casino.lifecycle.rng, "private_coup_open", open_then_compete)
    competing["first"] = deal(user, table, bets, request_id=request_id, commitment=commitment)
    competing["thread"].join(timeout=10)
    return competing


@pytest.fixture
def rng_table(transactional_db) -> Table:
    return TableFactory(code="rngrace", dealing_mode=Table.DealingMode.RNG, decks=4)


def test_a_double_click_deals_one_coup(rng_table, monkeypatch):
    player = funded("1000.00")
    commitment = rng_shoe_ready(table=rng_table, player=player).commitment
    raced = competing_deal(
        monkeypatch, user=player, table=rng_table, bets={"player": "10.00"}, request_id="click", commitment=commitment
    )

    assert raced["waited"] is True
    assert raced["answer"]["replayed"] is True and raced["answer"]["round_id"] == raced["first"]["round_id"]
    assert Coup.objects.filter(player=player).count() == 1 and Bet.objects.filter(user=player).count() == 1
    assert wallet_balance(user=player) == Decimal(raced["first"]["balance"])
    assert ledger_check().ok


def test_two_tabs_deal_one_after_the_other_from_one_shoe(rng_table, monkeypatch):
    """Two requests (two ids) at once: the second waits for the first's shoe, then deals the next coup of it."""
    player = funded("1000.00")
    commitment = rng_shoe_ready(table=rng_table, player=player).commitment
    raced = competing_deal(
        monkeypatch, user=player, table=rng_table, bets={"banker": "10.00"}, request_id=None, commitment=commitment
    )

    assert raced["waited"] is True
    coups = list(Coup.objects.filter(player=player).order_by("number"))
    assert [coup.number for coup in coups] == [1, 2] and len({coup.shoe_id for coup in coups}) == 1
    assert {coups[0].round_id, coups[1].round_id} == {raced["first"]["round_id"], raced["answer"]["round_id"]}
    assert ledger_check().ok


def test_two_players_first_deals_make_two_shoes(rng_table):
    """Two players' first visits at once: one private shoe each (the table's lock numbers them)."""
    alice, bob = funded(), funded()
    shoes: list = []

    def visit(user) -> None:
        try:
            shoes.append(rng_shoe_ready(table=rng_table, player=user))
        finally:
            connection.close()

    threads = [threading.Thread(target=visit, args=(user,)) for user in (alice, bob)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert sorted(shoe.player_id for shoe in shoes) == sorted([alice.pk, bob.pk])
    assert len({shoe.number for shoe in shoes}) == 2


def test_players_dealing_at_one_table_at_once_never_wait_for_each_others_money(rng_table, monkeypatch):
    """The first player's deal stops between its settlement and its commit (its table's bets in play and the
    house locked, in its coup's shard); the second player's deal, whose coup the next shard takes, runs to its
    end meanwhile. One bets-in-play account for the table made every deal there wait for the one before."""
    alice, bob = funded("1000.00"), funded("1000.00")
    commitments = {user: rng_shoe_ready(table=rng_table, player=user).commitment for user in (alice, bob)}
    settle = casino.lifecycle.rng.private_coup_settle
    second: dict[str, object] = {}

    def bob_deals() -> None:
        try:
            second["answer"] = deal(bob, rng_table, {"player": "10.00"}, commitment=commitments[bob])
        except Exception as error:
            second["answer"] = error
        finally:
            connection.close()

    def settle_then_compete(**kwargs):
        settled = settle(**kwargs)
        if "thread" in second:  # Bob's own deal, settled
            return settled
        thread = second["thread"] = threading.Thread(target=bob_deals)
        thread.start()
        waited = False
        for _ in range(500):  # up to 10 s: a busy machine's
            waited = waited or waiting_for_a_lock()
            thread.join(timeout=0.02)
            if not thread.is_alive():
                break
        second["waited"], second["done_first"] = waited, not thread.is_alive()
        return settled

    monkeypatch.setattr(casino.lifecycle.rng, "private_coup_settle", settle_then_compete)
    first = deal(alice, rng_table, {"banker": "10.00"}, commitment=commitments[alice])
    second["thread"].join(timeout=10)

    assert second["waited"] is False and second["done_first"] is True
    assert isinstance(second["answer"], dict) and second["answer"]["round_id"] != first["round_id"]
    in_play = Account.objects.filter(kind=Account.Kind.BETS_IN_PLAY, table=rng_table)
    coups = Coup.objects.filter(table=rng_table)
    assert sorted(in_play.values_list("shard", flat=True)) == sorted(ledger_shard(coup) for coup in coups)
    assert len(set(in_play.values_list("shard", flat=True))) == 2
    assert {account.balance for account in in_play} == {Decimal("0.00")}
    assert ledger_check().ok
