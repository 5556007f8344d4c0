"""A batch of placements costs the same whatever the coup already holds (issue 29): the same queries, and
about the same time, at 1,000 and at 30,000 bets on the coup. Nothing a batch does may count or sum the
coup's bets (the live totals' bettors are running counters, ``CoupStakeTotal.bettors``): at 30,000 bets,
``COUNT(DISTINCT ...)`` over them took 22-25 ms a batch on PostgreSQL, under the coup's lock."""

from __future__ import annotations

import statistics
import time
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tables.models import Coup
from tests.factories import CoupFactory
from tests.wagering.conftest import funded
from wagering.ledger import ledger_post, rows_insert, rows_insert_returning_ids
from wagering.models import Account, Bet, BetBatch, CoupStakeTotal, LedgerTransaction
from wagering.placement_together import PlacementAsked, bets_place_together

# ANALYZE (PostgreSQL) is the tables' owner's: the statistics a server with autovacuum on would have.
pytestmark = pytest.mark.database_owner

FILLERS = 500  # players whose bets fill the coups, each on Player and Banker in every batch of theirs
SMALL, LARGE = 1_000, 30_000
BATCH = 6  # placements in the batch measured (a small one: what grew was a cost a batch, not a placement)
RUNS = 7
CHUNK = 2_000  # rows a statement (SQLite's limit on a statement's parameters)


def coup_filled(*, bets: int, fillers: list[int], stake_account: Account) -> Coup:
    """A coup taking bets with ``bets`` bets on it already, one on Player and one on Banker a batch (the table
    stays within its differential), their running totals as the placements keep them: written set-wise, the
    batches' placements without legs (the money moved by one transaction for them all)."""
    coup = CoupFactory()
    batches = bets // 2
    users = [fillers[index % len(fillers)] for index in range(batches)]
    for start in range(0, batches, CHUNK):
        chunk = users[start : start + CHUNK]
        placements = rows_insert_returning_ids(
            LedgerTransaction,
            ("kind", "currency", "coup", "actor", "reason"),
            [(LedgerTransaction.Kind.BET_PLACEMENT.value, "EUR", coup.pk, user, "") for user in chunk],
        )
        batch_ids = rows_insert_returning_ids(
            BetBatch, ("coup", "user", "placement"), [(coup.pk, *row) for row in zip(chunk, placements, strict=True)]
        )
        rows_insert(
            Bet,
            ("batch", "coup", "user", "bet_type", "stake", "stake_account", "state"),
            [
                (batch, coup.pk, user, bet_type, Decimal("1.00"), stake_account.pk, Bet.State.ACCEPTED.value)
                for batch, user in zip(batch_ids, chunk, strict=True)
                for bet_type in ("player", "banker")
            ],
        )
    # The stakes' money, in one transaction of the coup's: the table's bets in play hold them, as the books say.
    ledger_post(
        kind=LedgerTransaction.Kind.BET_PLACEMENT,
        currency="EUR",
        wallet_legs={stake_account: -Decimal(bets)},
        system_legs={Account.Kind.BETS_IN_PLAY: Decimal(bets)},
        coup=coup,
    )
    CoupStakeTotal.objects.bulk_create(
        CoupStakeTotal(coup=coup, bet_type=bet_type, currency="EUR", total=batches, bettors=len(set(users)))
        for bet_type in ("player", "banker")
    )
    return coup


def batch_placed(coup: Coup, asked: list[PlacementAsked]) -> tuple[float, int]:
    """The batch placed on the coup and rolled back (each run finds the coup as it was): its time and queries."""
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        answers = bets_place_together(coup=coup, asked=asked)
        elapsed = time.perf_counter() - started
        assert not [answer for answer in answers if isinstance(answer, Exception)]
        transaction.set_rollback(True)
    return elapsed, len(queries)


def test_a_batch_costs_the_same_at_30000_bets_on_the_coup_as_at_1000(db):
    User = get_user_model()
    fillers = [user.pk for user in User.objects.bulk_create(User(username=f"filler{i}") for i in range(FILLERS))]
    # Their stakes from a partner's float (seamless wallets): the fillers need no wallets of their own.
    stake_account = Account.objects.create(kind=Account.Kind.PARTNER_FLOAT, partner_code="fill", currency="EUR")
    small, large = (coup_filled(bets=bets, fillers=fillers, stake_account=stake_account) for bets in (SMALL, LARGE))
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    players = [funded("1000.00") for _ in range(BATCH)]
    asked = [
        PlacementAsked(
            user=player,
            stakes={"player": Decimal("10"), "tie": Decimal("1")} if index % 2 else {"banker": Decimal("10")},
            action="bet_batch_placed",
        )
        for index, player in enumerate(players)
    ]
    batch_placed(small, asked)  # warm: the first batch's caches (rules, content types) are not the coup's
    runs = {small.pk: [], large.pk: []}
    for _ in range(RUNS):
        for coup in (small, large):
            runs[coup.pk].append(batch_placed(coup, asked))
    (small_times, small_queries), (large_times, large_queries) = (
        zip(*runs[coup.pk], strict=True) for coup in (small, large)
    )
    assert set(small_queries) == set(large_queries) and len(set(small_queries)) == 1
    ratio = statistics.median(large_times) / statistics.median(small_times)
    assert ratio < 1.5, f"a batch took {ratio:.2f}x as long at {LARGE} bets on the coup as at {SMALL}"
