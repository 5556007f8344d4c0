"""A deal at a table dealt on demand runs a fixed number of statements (issue 30's benchmark: a player's coup
costs ~1 ms of a socket bet's work, not a big coup's): the count does not grow with the coups dealt from the
shoe nor with the player's history at the table (the ledger's shards open: a shard's first coup opens its
accounts), and stays under a bound, a regression guard."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.lifecycle.rng import RngDealAsked, rng_coup_deal, rng_shoe_ready
from tables.models import Table
from tests.factories import TableFactory
from tests.wagering.conftest import funded
from wagering.models import LEDGER_SHARDS, Account

pytestmark = pytest.mark.django_db

# Statements of one deal, the idempotency record, savepoints, BEGIN and COMMIT included (PostgreSQL: 25 for
# Deal, 27 for Rebet and deal, 2026-11-29, the table's limits in one statement; 26 and 28 before, the settlement
# given the coup, its cards and its bets in hand; 36 and 38 the day before, 47 and 49 at first; SQLite writes
# settlements row-wise: 34 and 36): a few to spare, not a re-read of the coup's bets or cards.
MOST_STATEMENTS = {"postgresql": 30, "sqlite": 40}


def statements_of_a_deal(user, table, bets) -> int:
    commitment = rng_shoe_ready(table=table, player=user).commitment
    asked = RngDealAsked(user=user, table=table, bets=bets, commitment=commitment, request_id=uuid.uuid4().hex)
    with CaptureQueriesContext(connection) as captured:
        answer = rng_coup_deal(asked=asked)
    assert answer["shoe_ended"] is None  # a shoe's last deal also reveals it and makes the next: not compared
    return len(captured.captured_queries)


@pytest.mark.parametrize("bets", [{"banker": "10.00", "player_pair": "1.00"}, None], ids=["deal", "rebet"])
def test_a_deal_runs_the_same_statements_however_long_the_shoe_and_the_history(bets):
    table = TableFactory(code="rng1", dealing_mode=Table.DealingMode.RNG, decks=4, side_bets=["player_pair"])
    player, other = funded("100000.00"), funded("100000.00")
    for shard in range(LEDGER_SHARDS):  # the house and the table's bets in play, opened in each shard
        Account.objects.create(kind=Account.Kind.HOUSE, shard=shard)
        Account.objects.create(kind=Account.Kind.BETS_IN_PLAY, table=table, shard=shard)
    statements_of_a_deal(player, table, {"banker": "10.00", "player_pair": "1.00"})
    early = statements_of_a_deal(player, table, bets)
    for number in range(12):  # the player's history and the shoe's coups grow; so do another player's
        statements_of_a_deal(player, table, {"player": "5.00"} if number % 2 else None)
        statements_of_a_deal(other, table, {"tie": "1.00"})
    later = statements_of_a_deal(player, table, bets)

    assert later == early
    assert later <= MOST_STATEMENTS[connection.vendor]
