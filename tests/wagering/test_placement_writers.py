"""The two placement writers (``wagering.placement_writers``): the one statement PostgreSQL runs and the
model-by-model writer SQLite runs write the same rows, compared row by row with ids and times aside."""

from __future__ import annotations

import pytest

from tables.models import AuditLog
from tests.factories import CoupFactory, UserFactory
from tests.wagering.conftest import fund, postgres_only
from wagering import placement, placement_writers
from wagering.cancellation import bet_batch_undo
from wagering.models import Account, Bet, BetBatch, CoupStakeTotal, LedgerEntry, LedgerTransaction

pytestmark = [postgres_only, pytest.mark.django_db]


def placed_rows(monkeypatch, writer) -> dict:
    """A fresh coup and player; three batches (one undone); every row they wrote, ids and times replaced by
    what they stand for."""
    monkeypatch.setattr(placement, "placement_writer", lambda: writer)
    coup, player = CoupFactory(), UserFactory()
    fund(player, "500.00")
    placement.bet_batch_place(user=player, coup=coup, bets={"player": "25.00", "tie": "5"})
    placement.bet_batch_place(user=player, coup=coup, bets={"player": "10", "player_pair": "2.50"})
    placement.bet_batch_place(user=player, coup=coup, bets={"tie": "1"})
    bet_batch_undo(user=player, coup=coup)
    names = {("user", player.pk): "player", ("coup", coup.pk): "coup", ("table", coup.table_id): "table"}
    accounts = {account.pk: (account.kind, names.get(("table", account.table_id))) for account in Account.objects.all()}
    transactions = list(LedgerTransaction.objects.filter(coup=coup).order_by("pk"))
    order = {transaction.pk: index for index, transaction in enumerate(transactions)}
    batches = list(BetBatch.objects.filter(coup=coup).order_by("pk"))
    batch_order = {batch.pk: index for index, batch in enumerate(batches)}
    return {
        "transactions": [
            (t.kind, names[("coup", t.coup_id)], names.get(("user", t.actor_id)), t.reason) for t in transactions
        ],
        "entries": [
            (order[e.transaction_id], accounts[e.account_id], e.amount, e.balance_before, e.balance_after)
            for e in LedgerEntry.objects.filter(transaction__in=transactions).order_by("transaction_id", "amount")
        ],
        "batches": [(order[b.placement_id], order.get(b.cancellation_id), names[("user", b.user_id)]) for b in batches],
        "bets": sorted(
            (batch_order[b.batch_id], b.bet_type, b.stake, b.state, names[("user", b.user_id)])
            for b in Bet.objects.filter(coup=coup)
        ),
        "stake_totals": sorted(CoupStakeTotal.objects.filter(coup=coup).values_list("bet_type", "total", "bettors")),
        "balances": sorted(
            (accounts[account.pk], account.balance)
            for account in Account.objects.filter(
                pk__in={e.account_id for e in LedgerEntry.objects.filter(transaction__in=transactions)}
            )
        ),
        "audit": [
            (
                row.action,
                "player" if row.actor_label == player.username else row.actor_label,
                row.object_type,
                {**row.after, "round_id": "coup" if row.after.get("round_id") == coup.round_id else "other"},
                row.reason,
            )
            for row in AuditLog.objects.filter(table=coup.table).order_by("pk")
        ],
    }


def test_the_one_statement_writer_and_the_model_writer_write_the_same_rows(monkeypatch):
    one_statement = placed_rows(monkeypatch, placement_writers.placement_write_in_one_statement)
    model_by_model = placed_rows(monkeypatch, placement_writers.placement_write)
    assert one_statement["bets"] and one_statement["audit"]  # the comparison compares something
    for name in one_statement:
        assert one_statement[name] == model_by_model[name], name


def test_a_placement_written_in_sql_answers_its_batch_bets_and_transaction_without_reading_them_back(
    django_assert_num_queries,
):
    """A partner's bet answers with its batch's ledger transaction (``partners.bets``): read back, it cost a query
    a bet, in a group commit's run too."""
    coup, player = CoupFactory(), UserFactory()
    fund(player, "500.00")
    placed = placement.bet_batch_place(user=player, coup=coup, bets={"player": "25.00", "tie": "5"})
    with django_assert_num_queries(0):
        batch, bets = placed.batch, placed.bets
        transaction = batch.placement
        assert [bet.batch for bet in bets] == [batch, batch]
    assert transaction == LedgerTransaction.objects.get(pk=batch.placement_id)
    assert transaction.kind == LedgerTransaction.Kind.BET_PLACEMENT
    assert {bet.pk for bet in bets} == set(Bet.objects.filter(batch_id=batch.pk).values_list("pk", flat=True))
