"""Placements together (``wagering.placement_together``, the bet intake's group commit) answer and write
exactly what the same placements one after another by ``bet_batch_place`` do: every refusal that depends on
what was accepted before it in the group (funds, limits, table maximum, differential, Player and Banker,
markers), compared answer by answer and row by row, ids and times aside."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal as D

import pytest
from django.conf import settings
from django.utils import timezone

from tables.models import AuditLog, PersonalLimitMarker
from tests.factories import CoupFactory, TableFactory, UserFactory
from tests.wagering.conftest import fund
from wagering import placement_together
from wagering.errors import BetRejected
from wagering.models import Account, Bet, BetBatch, CoupStakeTotal, LedgerEntry, LedgerTransaction
from wagering.placement import PlacedBatch, bet_batch_place, bet_stakes_checked
from wagering.placement_together import PlacementAsked, bets_place_together

pytestmark = pytest.mark.django_db

# (player, bets): each refusal is caused by a placement accepted earlier in the same group.
SCENARIO = [
    ("ann", {"banker": "900", "tie": "60"}),
    ("bob", {"banker": "700"}),  # the differential: 1,600 on Banker against nothing
    ("bob", {"player": "900"}),
    ("ann", {"banker": "150"}),  # over her maximum of 1,000 with the 900 before
    ("ann", {"player": "10"}),  # Player and Banker
    ("cat", {"tie": "50"}),
    ("dan", {"tie": "60"}),  # the table-wide maximum of tie: 60 + 50 + 60 > 150
    ("cat", {"player": "40"}),  # her funds: 50 of 80 already staked
    ("cat", {"player": "30"}),
    ("eve", {"banker": "50"}),  # her marker's minimum of 100
    ("eve", {"banker": "1100"}),  # over the table's maximum, within her marker's 2,000
    ("eve", {"banker": "1000"}),  # ... which 1,100 + 1,000 is over
    ("eve", {"player_pair": "5"}),  # her marker is Banker's: a pair keeps the table's minimum of 1
    ("eve", {"banker_pair": "60"}),  # ... and the table's pair maximum of 50
    ("nobody", {"player": "5"}),  # no wallet
    ("dan", {"player_pair": "5", "player": "20"}),
]
FUNDS = {"ann": "5000.00", "bob": "5000.00", "cat": "80.00", "dan": "500.00", "eve": "9000.00"}


def placed_group(*, together: bool) -> tuple[list, dict]:
    """A fresh table and players, the scenario placed one way or the other: the answers, and every row."""
    table = TableFactory(max_differential=D("1500.00"), limits={"tie": ("1.00", "100.00", "150.00")})
    coup = CoupFactory(table=table)
    users = {name: UserFactory() for name in (*FUNDS, "nobody")}
    for name, amount in FUNDS.items():
        fund(users[name], amount)
    PersonalLimitMarker.objects.create(
        table=table,
        player=users["eve"],
        currency=settings.HOUSE_CURRENCY,
        bet_types=["banker"],
        minimum=D("100.00"),
        maximum=D("2000.00"),
        valid_from=timezone.now() - timedelta(hours=1),
    )
    if together:
        asked = [
            PlacementAsked(user=users[name], stakes=bet_stakes_checked(bets), action="bet_batch_placed")
            for name, bets in SCENARIO
        ]
        answers = bets_place_together(coup=coup, asked=asked)
    else:
        answers = []
        for name, bets in SCENARIO:
            try:
                answers.append(bet_batch_place(user=users[name], coup=coup, bets=bets))
            except BetRejected as refusal:
                answers.append(refusal)
    return [_answer(answer) for answer in answers], _rows(coup, {user.pk: name for name, user in users.items()})


def _answer(answer: PlacedBatch | BetRejected) -> tuple:
    if isinstance(answer, BetRejected):
        return ("refused", answer.code, answer.message, answer.details)
    bets = {bet.bet_type: bet.stake for bet in answer.bets}
    return ("placed", bets, answer.balance, answer.own_totals, answer.currency)


def _rows(coup, names: dict[int, str]) -> dict:
    accounts = {account.pk: (account.kind, names.get(account.user_id)) for account in Account.objects.all()}
    transactions = list(LedgerTransaction.objects.filter(coup=coup).order_by("pk"))
    order = {transaction.pk: index for index, transaction in enumerate(transactions)}
    batches = list(BetBatch.objects.filter(coup=coup).order_by("pk"))
    batch_order = {batch.pk: index for index, batch in enumerate(batches)}
    entries = LedgerEntry.objects.filter(transaction__in=transactions).order_by("transaction_id", "amount")
    return {
        "transactions": [(t.kind, t.currency, names[t.actor_id], t.reason) for t in transactions],
        "entries": [
            (order[e.transaction_id], accounts[e.account_id], e.amount, e.balance_before, e.balance_after)
            for e in entries
        ],
        "batches": [(order[b.placement_id], names[b.user_id]) for b in batches],
        "bets": sorted(
            (batch_order[b.batch_id], b.bet_type, b.stake, b.state, names[b.user_id], accounts[b.stake_account_id])
            for b in Bet.objects.filter(coup=coup)
        ),
        "stake_totals": sorted(
            CoupStakeTotal.objects.filter(coup=coup).values_list("bet_type", "currency", "total", "bettors")
        ),
        "balances": sorted(
            ((accounts[a.pk], a.balance) for a in Account.objects.filter(entries__in=entries).distinct()), key=repr
        ),
        "audit": [
            (
                row.action,
                names[row.actor_id],
                row.object_type,
                batch_order[int(row.object_id)],
                {**row.after, "round_id": row.after["round_id"] == coup.round_id},
            )
            for row in AuditLog.objects.filter(table=coup.table, action="bet_batch_placed").order_by("pk")
        ],
    }


def test_placements_together_answer_and_write_what_they_would_one_by_one():
    one_by_one_answers, one_by_one_rows = placed_group(together=False)
    together_answers, together_rows = placed_group(together=True)
    codes = [answer[1] for answer in one_by_one_answers if answer[0] == "refused"]
    assert codes == [  # the scenario refuses what it means to: the comparison compares something
        "max_differential",
        "above_maximum",
        "player_and_banker",
        "table_maximum",
        "insufficient_funds",
        "below_minimum",
        "above_maximum",
        "above_maximum",
        "insufficient_funds",
    ]
    assert sum(answer[0] == "placed" for answer in together_answers) == len(SCENARIO) - len(codes)
    for index, (alone, grouped) in enumerate(zip(one_by_one_answers, together_answers, strict=True)):
        assert grouped == alone, (index, SCENARIO[index])
    for name in one_by_one_rows:
        assert together_rows[name] == one_by_one_rows[name], name


def test_a_group_on_a_coup_no_longer_taking_bets_is_refused_whole(coup, player):
    type(coup).objects.filter(pk=coup.pk).update(state=type(coup).State.DEALING)
    asked = [PlacementAsked(user=player, stakes={"player": D("10.00")}, action="bet_batch_placed")] * 3
    answers = bets_place_together(coup=coup, asked=asked)
    assert [answer.code for answer in answers] == ["betting_closed"] * 3
    assert not Bet.objects.exists() and not LedgerTransaction.objects.filter(coup=coup).exists()


def test_what_moved_before_the_coups_lock_is_checked_again_under_it(coup, monkeypatch):
    """The group is checked before the coup's lock; what other placements moved meanwhile (a wallet, the
    table's totals, a player's open stakes) is read again under it, and the group checked again."""
    ann, bob = UserFactory(), UserFactory()
    fund(ann, "100.00")
    fund(bob, "1000.00")
    coup_betting_locked = placement_together.coup_betting_locked

    def ann_bets_first(locked_coup):
        bet_batch_place(user=ann, coup=coup, bets={"banker": "60"})  # between the checks and the lock
        coup_betting_locked(locked_coup)

    monkeypatch.setattr(placement_together, "coup_betting_locked", ann_bets_first)
    asked = [
        PlacementAsked(user=ann, stakes={"tie": D("50")}, action="bet_batch_placed"),  # 40 left
        PlacementAsked(user=bob, stakes={"tie": D("50")}, action="bet_batch_placed"),
    ]
    answers = bets_place_together(coup=coup, asked=asked)
    assert answers[0].code == "insufficient_funds" and answers[0].details["balance"] == "40.00"
    assert isinstance(answers[1], PlacedBatch) and answers[1].balance == D("950.00")
    totals = CoupStakeTotal.objects.filter(coup=coup).values_list("bet_type", "total", "bettors")
    assert sorted(totals) == [("banker", D("60.00"), 1), ("tie", D("50.00"), 1)]


def test_the_totals_event_counts_the_bettors_after_the_group_without_reading_them_after_its_writes(coup, monkeypatch):
    """Read with the totals under the coup's lock, plus the bet types each placement joined: what a read after
    the writes would give (the running counts move only under the lock)."""
    ann, bob, cat = UserFactory(), UserFactory(), UserFactory()
    for user in (ann, bob, cat):
        fund(user, "1000.00")
    bet_batch_place(user=ann, coup=coup, bets={"player": "10"})
    sent = []
    monkeypatch.setattr("wagering.placement.table_totals_send", lambda **event: sent.append(event["data"]))

    def read_after(**kwargs):
        raise AssertionError("the bettors were read after the writes")

    monkeypatch.setattr("wagering.selectors.coup_bettor_counts", read_after)
    asked = [
        PlacementAsked(user=ann, stakes={"player": D("5"), "tie": D("1")}, action="bet_batch_placed"),  # joins tie
        PlacementAsked(user=bob, stakes={"player": D("5")}, action="bet_batch_placed"),
        PlacementAsked(user=bob, stakes={"player": D("5")}, action="bet_batch_placed"),  # bob again: counted once
        PlacementAsked(user=cat, stakes={"banker": D("5")}, action="bet_batch_placed"),
    ]
    assert all(isinstance(answer, PlacedBatch) for answer in bets_place_together(coup=coup, asked=asked))
    monkeypatch.undo()
    from wagering.selectors import coup_bettor_counts

    assert sent[-1]["bettors"] == coup_bettor_counts(coup=coup, currency=settings.HOUSE_CURRENCY)
    assert sent[-1]["bettors"] == {"player": 2, "tie": 1, "banker": 1}


def test_a_groups_answers_make_its_rows_model_instances_only_when_asked_for(coup, monkeypatch):
    """The socket's and the table page's answers read the stakes; the instances cost a fifth of the batch thread."""
    ann, bob = UserFactory(), UserFactory()
    for user in (ann, bob):
        fund(user, "1000.00")
    made = []
    instances = placement_together.placed_instances
    monkeypatch.setattr(placement_together, "placed_instances", lambda **kwargs: made.append(1) or instances(**kwargs))
    asked = [
        PlacementAsked(user=ann, stakes={"player": D("5.00"), "tie": D("1.00")}, action="bet_batch_placed"),
        PlacementAsked(user=bob, stakes={"banker": D("7.00")}, action="bet_batch_placed"),
    ]
    answers = bets_place_together(coup=coup, asked=asked)
    assert [answer.stakes for answer in answers] == [placement.stakes for placement in asked] and made == []
    batch, bets = answers[0].batch, answers[0].bets  # asked for: made now, with the ids they were written with
    assert made == [1] and answers[0].batch is batch
    stored = BetBatch.objects.get(user=ann, coup=coup)
    assert (batch.pk, batch.placement_id, batch.created_at) == (stored.pk, stored.placement_id, stored.created_at)
    assert [(bet.pk, bet.bet_type, bet.stake) for bet in bets] == list(
        Bet.objects.filter(batch=stored).order_by("pk").values_list("pk", "bet_type", "stake")
    )
