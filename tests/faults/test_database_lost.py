"""A request's database connection cut (``pg_terminate_backend``) while it is inside its transaction:
the request fails cleanly, nothing of it is written, and the next request goes through."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from django.db import connections
from django.test import Client

from casino.lifecycle import loop
from tables.models import Coup
from tests.faults.conftest import DEPOSIT
from tests.processes import database_url_of_test_database, wait_until
from wagering.checks import ledger_check, settlement_check
from wagering.models import Account, Bet, LedgerTransaction
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]


def backends_waiting_on_a_lock() -> list[int]:
    with psycopg.connect(database_url_of_test_database(), autocommit=True) as watcher:
        rows = watcher.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchall()
    return [pid for (pid,) in rows]


def test_a_bet_request_whose_connection_is_cut_writes_nothing_and_the_next_goes_through(fault_table, players):
    first, player = players[0], players[1]
    while not Coup.objects.filter(table=fault_table, state=Coup.State.BETTING).exists():
        loop.table_step(table_id=fault_table.pk)
    coup = Coup.objects.get(table=fault_table, state=Coup.State.BETTING)
    Coup.objects.filter(pk=coup.pk).update(betting_closes_at=coup.betting_closes_at + loop.SETTLEMENT_RETRY_AFTER)
    bet_batch_place(user=first, coup=coup, bets={"banker": "50.00"})  # the table's bets in play exist
    in_play = Account.objects.get(kind=Account.Kind.BETS_IN_PLAY)
    transactions = LedgerTransaction.objects.count()
    browser = Client(raise_request_exception=False)
    browser.force_login(player)

    def bet():
        return browser.post(
            f"/tables/{fault_table.code}/bets/", {"bets": {"player": "10.00"}}, content_type="application/json"
        )

    with ThreadPoolExecutor(max_workers=1) as request_thread:  # one thread: the next request on its connection
        with psycopg.connect(database_url_of_test_database()) as locker:
            # The request stops inside its transaction, its ledger transaction written, waiting for this lock.
            locker.execute("SELECT id FROM wagering_account WHERE id = %s FOR UPDATE", [in_play.pk])
            cut = request_thread.submit(bet)
            wait_until(backends_waiting_on_a_lock, what="the request inside its transaction")
            (request_backend,) = backends_waiting_on_a_lock()
            locker.execute("SELECT pg_terminate_backend(%s)", [request_backend])
            response = cut.result(timeout=30)
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "database_unavailable"
        assert LedgerTransaction.objects.count() == transactions
        assert not Bet.objects.filter(user=player).exists()
        assert wallet_balance(user=player) == DEPOSIT
        assert settlement_check(finished=False).problems == []
        assert ledger_check().ok

        response = request_thread.submit(bet).result(timeout=30)
        request_thread.submit(connections.close_all).result()  # back to the pool before the test database goes
    assert response.status_code == 200, response.content
    assert response.json()["bets"] == {"player": "10.00"}
    assert wallet_balance(user=player) == DEPOSIT - 10
    assert ledger_check().ok
