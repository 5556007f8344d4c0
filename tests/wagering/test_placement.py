"""Placing a batch of bets: all or nothing, into bets in play, while betting is open; Rebet and Rebet X2;
who shows each hand."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from casino.lifecycle.settlement import coup_settle
from tables.models import AuditLog, Coup
from tests.factories import CoupFactory, TableFactory, coup_deal_and_resolve
from tests.wagering.conftest import funded, rejected
from wagering.cancellation import bet_batch_undo
from wagering.checks import ledger_check
from wagering.errors import BetRejected
from wagering.models import Bet, BetBatch
from wagering.placement import bet_batch_place, bet_rebet
from wagering.selectors import coup_top_bettors, wallet_balance

D = Decimal


def test_a_batch_moves_the_stakes_to_bets_in_play(player, coup, sent_events, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        placed = bet_batch_place(user=player, coup=coup, bets={"banker": "100", "tie": D("10.50"), "banker_pair": 5})
    batch = placed.batch
    stored = {bet.pk: (bet.bet_type, bet.stake) for bet in batch.bets.all()}
    assert stored == {bet.pk: (bet.bet_type, bet.stake) for bet in placed.bets}  # as the service answered
    assert (placed.balance, placed.own_totals["banker"]) == (D("9884.50"), D("100.00"))
    assert {bet.bet_type: bet.stake for bet in batch.bets.all()} == {
        "banker": D("100.00"),
        "tie": D("10.50"),
        "banker_pair": D("5.00"),
    }
    assert wallet_balance(user=player) == D("9884.50")
    legs = {leg.account.kind: leg.amount for leg in batch.placement.entries.select_related("account")}
    assert legs == {"player": D("-115.50"), "bets_in_play": D("115.50")}
    audit = AuditLog.objects.get(action="bet_batch_placed")
    assert (audit.actor, audit.actor_label, audit.table_id, audit.object_type, audit.object_id, audit.before) == (
        player,
        player.get_username(),
        coup.table_id,
        "BetBatch",
        str(batch.pk),
        None,
    )
    bets = {"banker": "100.00", "tie": "10.50", "banker_pair": "5.00"}
    assert audit.after == {"round_id": coup.round_id, "bets": bets, "balance": "9884.50"}
    assert ("user", "wallet", {"balance": "9884.50", "round_id": coup.round_id, "bets": bets}) in sent_events
    assert (
        "table",
        "bet_totals",
        {
            "round_id": coup.round_id,
            "currency": "EUR",
            "totals": {"banker": "100.00", "tie": "10.50", "banker_pair": "5.00"},
            "bettors": {"banker": 1, "tie": 1, "banker_pair": 1},
        },
    ) in sent_events
    assert ledger_check().ok


def test_the_table_totals_count_the_bettors_on_each_bet(player, coup, sent_events, django_capture_on_commit_callbacks):
    """Each player counts once per bet type however many batches; an undo that empties it takes them off."""
    other = funded()
    with django_capture_on_commit_callbacks(execute=True):
        bet_batch_place(user=player, coup=coup, bets={"banker": "10"})
        bet_batch_place(user=player, coup=coup, bets={"banker": "5", "tie": "1"})
        bet_batch_place(user=other, coup=coup, bets={"banker": "20"})
        bet_batch_undo(user=player, coup=coup)
    totals = [data for kind, event_type, data in sent_events if event_type == "bet_totals"]
    assert [(data["totals"], data["bettors"]) for data in totals] == [
        ({"banker": "10.00"}, {"banker": 1}),
        ({"banker": "15.00", "tie": "1.00"}, {"banker": 1, "tie": 1}),
        ({"banker": "35.00", "tie": "1.00"}, {"banker": 2, "tie": 1}),
        ({"banker": "30.00"}, {"banker": 2}),
    ]


def test_a_failing_bet_rejects_the_whole_batch(player, coup):
    error = rejected(player, coup, {"banker": "100", "tie": "150"})
    assert error.code == "above_maximum"
    assert not BetBatch.objects.exists()


@pytest.mark.parametrize(
    ("bets", "code"),
    [
        ({}, "empty_batch"),
        ({"dragon": "10"}, "unknown_bet_type"),
        ({"player": "0"}, "invalid_amount"),
        ({"player": "-10"}, "invalid_amount"),
        ({"player": "10.005"}, "invalid_amount"),
        ({"player": 10.5}, "invalid_amount"),
        ({"player": "NaN"}, "invalid_amount"),
        ({"player": "Infinity"}, "invalid_amount"),
        ({"player": "ten"}, "invalid_amount"),
        ({"player": None}, "invalid_amount"),
        ({"player": True}, "invalid_amount"),
        ({"either_pair": "5"}, "bet_type_not_offered"),  # not among the table's side bets
    ],
)
def test_malformed_batches_are_refused(player, coup, bets, code):
    assert rejected(player, coup, bets).code == code


def test_a_side_bet_offered_without_limits_is_not_offered(player):
    coup = CoupFactory(table=TableFactory(side_bets=["player_pair", "banker_pair", "small"]))
    assert rejected(player, coup, {"small": "5"}).code == "bet_type_not_offered"


@pytest.mark.parametrize(
    "change",
    [
        {"state": Coup.State.NO_MORE_BETS},
        {"state": Coup.State.DEALING},
        {"state": Coup.State.SETTLED},
        {"betting_closes_at": timezone.now() - timedelta(seconds=1)},
    ],
)
def test_no_bets_once_betting_has_closed(player, coup, change):
    Coup.objects.filter(pk=coup.pk).update(**change)
    error = rejected(player, coup, {"player": "10"})
    assert error.code == "betting_closed" and "no more bets" in error.message
    assert error.details["round_id"] == coup.round_id


def test_bets_are_taken_until_betting_closes(player, coup):
    Coup.objects.filter(pk=coup.pk).update(betting_closes_at=timezone.now() + timedelta(seconds=10))
    bet_batch_place(user=player, coup=coup, bets={"player": "10"})


def test_a_no_bet_coup_takes_no_bets(player, coup):
    Coup.objects.filter(pk=coup.pk).update(no_bet=True)
    assert rejected(player, coup, {"player": "10"}).code == "no_bet_coup"


def settled(coup, cards="9S 2H KD 3C"):
    coup_deal_and_resolve(coup, cards)
    coup_settle(coup_id=coup.pk)


@pytest.mark.parametrize(
    ("multiplier", "expected"), [(1, {"player": "25.00", "tie": "5.00"}), (2, {"player": "50.00", "tie": "10.00"})]
)
def test_rebet_places_the_last_coups_bets_again(player, table, multiplier, expected):
    previous = CoupFactory(table=table)
    bet_batch_place(user=player, coup=previous, bets={"player": "10", "tie": "5"})
    bet_batch_place(user=player, coup=previous, bets={"player": "15"})
    bet_batch_place(user=player, coup=previous, bets={"player_pair": "5"})
    bet_batch_undo(user=player, coup=previous)  # the undone batch is not repeated
    settled(previous)
    coup = CoupFactory(table=table)
    batch = bet_rebet(user=player, coup=coup, multiplier=multiplier).batch
    assert {bet.bet_type: str(bet.stake) for bet in batch.bets.all()} == expected
    assert AuditLog.objects.filter(action=f"bet_rebet_x{multiplier}").exists()


def test_rebet_repeats_the_latest_coup_with_bets_at_this_table(player, table):
    first = CoupFactory(table=table)
    bet_batch_place(user=player, coup=first, bets={"banker": "40"})
    settled(first)
    skipped = CoupFactory(table=table)  # the player sat this one out
    settled(skipped)
    elsewhere = CoupFactory()
    bet_batch_place(user=player, coup=elsewhere, bets={"player": "99"})
    coup = CoupFactory(table=table)
    assert {bet.bet_type: bet.stake for bet in bet_rebet(user=player, coup=coup).batch.bets.all()} == {
        "banker": D("40.00")
    }


def test_rebet_x2_honours_every_limit_all_or_nothing(player, table):
    previous = CoupFactory(table=table)
    bet_batch_place(user=player, coup=previous, bets={"player": "600", "tie": "10"})
    settled(previous)
    coup = CoupFactory(table=table)
    with pytest.raises(BetRejected) as error:
        bet_rebet(user=player, coup=coup, multiplier=2)
    assert error.value.code == "above_maximum" and error.value.details["total"] == "1200.00"
    assert not Bet.objects.filter(coup=coup).exists()
    bet_rebet(user=player, coup=coup, multiplier=1)


def test_rebet_needs_earlier_bets_and_a_multiplier_of_one_or_two(player, coup):
    with pytest.raises(BetRejected) as error:
        bet_rebet(user=player, coup=coup)
    assert error.value.code == "no_previous_bets"
    for multiplier in (3, True, 2.0):
        with pytest.raises(BetRejected) as error:
            bet_rebet(user=player, coup=coup, multiplier=multiplier)
        assert error.value.code == "invalid_multiplier"


def test_the_top_bettor_on_each_hand_shows_it(coup):
    small, big, banker = funded(), funded(), funded()
    assert coup_top_bettors(coup=coup) == {"player": None, "banker": None}
    bet_batch_place(user=small, coup=coup, bets={"player": "100"})
    bet_batch_place(user=big, coup=coup, bets={"player": "80"})
    bet_batch_place(user=big, coup=coup, bets={"player": "70"})  # 150 in all
    bet_batch_place(user=banker, coup=coup, bets={"banker": "5", "tie": "100"})
    assert coup_top_bettors(coup=coup) == {"player": big, "banker": banker}
    bet_batch_undo(user=big, coup=coup)
    bet_batch_undo(user=big, coup=coup)
    assert coup_top_bettors(coup=coup) == {"player": small, "banker": banker}
