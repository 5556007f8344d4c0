"""Placing a batch of bets: every limit, all or nothing, and Undo / Remove / Rebet / Rebet X2."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from casino.settlement import coup_settle
from tables.models import AuditLog, Coup, PersonalLimitMarker
from tests.factories import CoupFactory, TableFactory, UserFactory, coup_resolve
from tests.wagering.conftest import fund
from wagering.cancellation import bet_batch_undo, bet_remove_all
from wagering.checks import ledger_check
from wagering.errors import BetRejected
from wagering.models import Bet, BetBatch, LedgerTransaction
from wagering.placement import bet_batch_place, bet_rebet
from wagering.selectors import coup_bet_totals, coup_top_bettors, wallet_balance

D = Decimal


def rejected(user, coup, bets) -> BetRejected:
    """Place, expecting a refusal that leaves no bet and moves no money."""
    balance, transactions = wallet_balance(user=user), LedgerTransaction.objects.count()
    bets_before = Bet.objects.filter(coup=coup, state=Bet.State.ACCEPTED).count()
    with pytest.raises(BetRejected) as error:
        bet_batch_place(user=user, coup=coup, bets=bets)
    assert wallet_balance(user=user) == balance
    assert LedgerTransaction.objects.count() == transactions
    assert Bet.objects.filter(coup=coup, state=Bet.State.ACCEPTED).count() == bets_before
    assert all(isinstance(value, str) for value in error.value.details.values())
    return error.value


def funded(amount="10000.00"):
    user = UserFactory()
    fund(user, amount)
    return user


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
    assert ("user", "wallet", {"balance": "9884.50"}) in sent_events
    assert (
        "table",
        "bet_totals",
        {"round_id": coup.round_id, "totals": {"banker": "100.00", "tie": "10.50", "banker_pair": "5.00"}},
    ) in sent_events
    assert ledger_check().ok


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


def test_the_table_minimum_per_bet_says_by_how_much(player, coup):
    error = rejected(player, coup, {"tie": "0.50"})
    assert error.code == "below_minimum"
    assert error.message == "Tie: 0.50 is under the table minimum of 1.00 by 0.50"
    assert error.details["short_by"] == "0.50" and error.details["limit"] == "table"


def test_the_table_maximum_per_bet_says_how_much_more_is_allowed(player, coup):
    error = rejected(player, coup, {"player": "1000.01"})
    assert error.code == "above_maximum"
    assert (
        error.message
        == "Player: 1000.01 is over the table maximum of 1000.00 by 0.01; at most 1000.00 more can be accepted"
    )


def test_limits_apply_to_the_players_total_over_batches(player, coup):
    bet_batch_place(user=player, coup=coup, bets={"player": "600"})
    error = rejected(player, coup, {"player": "500"})
    assert (error.code, error.details["total"], error.details["max_additional"]) == (
        "above_maximum",
        "1100.00",
        "400.00",
    )
    bet_batch_place(user=player, coup=coup, bets={"player": "400", "tie": "1"})
    assert coup_bet_totals(coup=coup, user=player) == {"player": D("1000.00"), "tie": D("1.00")}


def test_a_small_addition_is_fine_once_the_total_is_above_the_minimum(player, table):
    table.limits.filter(bet_type="player").update(minimum=D("25.00"))
    coup = CoupFactory(table=table)
    assert rejected(player, coup, {"player": "10"}).code == "below_minimum"
    bet_batch_place(user=player, coup=coup, bets={"player": "25"})
    bet_batch_place(user=player, coup=coup, bets={"player": "0.50"})


def marker(player, table, **fields):
    values = {"minimum": D("100.00"), "maximum": D("5000.00"), "valid_from": timezone.now() - timedelta(hours=1)}
    return PersonalLimitMarker.objects.create(table=table, player=player, **(values | fields))


def test_a_personal_limit_marker_replaces_the_table_limits(player, table):
    marker(player, table)
    coup = CoupFactory(table=table)
    error = rejected(player, coup, {"player": "50"})
    assert error.code == "below_minimum" and error.details["limit"] == "personal limit"
    assert error.message == "Player: 50.00 is under the personal limit minimum of 100.00 by 50.00"
    bet_batch_place(user=player, coup=coup, bets={"player": "3000"})  # over the table's 1000
    error = rejected(player, coup, {"player": "2000.01"})
    assert (error.code, error.details["max_additional"]) == ("above_maximum", "2000.00")


@pytest.mark.parametrize(
    "fields",
    [
        {"revoked_at": timezone.now()},
        {"valid_until": timezone.now() - timedelta(minutes=1)},
        {"valid_from": timezone.now() + timedelta(hours=1)},
    ],
)
def test_a_revoked_expired_or_future_marker_does_not_count(player, table, fields):
    marker(player, table, **fields)
    coup = CoupFactory(table=table)
    bet_batch_place(user=player, coup=coup, bets={"player": "50"})
    assert rejected(player, coup, {"player": "1000"}).code == "above_maximum"


def test_a_marker_at_another_table_does_not_count(player, coup):
    marker(player, TableFactory())
    bet_batch_place(user=player, coup=coup, bets={"player": "50"})


def test_the_table_wide_maximum_for_tie_counts_every_player(coup):
    for _ in range(4):
        bet_batch_place(user=funded(), coup=coup, bets={"tie": "100"})
    last = funded()
    bet_batch_place(user=last, coup=coup, bets={"tie": "60"})
    error = rejected(funded(), coup, {"tie": "50"})
    assert error.code == "table_maximum"
    assert error.message == (
        "Tie: the table's total would be 510.00, over the table-wide maximum of 500.00 by 10.00; "
        "at most 40.00 more can be accepted"
    )
    assert error.details["max_additional"] == "40.00"
    bet_batch_place(user=last, coup=coup, bets={"tie": "40"})


def test_the_table_wide_maximum_for_pairs(coup):
    for _ in range(5):
        bet_batch_place(user=funded(), coup=coup, bets={"player_pair": "50"})
    assert rejected(funded(), coup, {"player_pair": "1"}).code == "table_maximum"
    bet_batch_place(user=funded(), coup=coup, bets={"banker_pair": "1"})


@pytest.fixture
def tight_table(db):
    """Per-bet maximum 1000, maximum differential 1500."""
    return TableFactory(max_differential=D("1500.00"))


def test_the_maximum_differential_across_the_table(tight_table):
    coup = CoupFactory(table=tight_table)
    bet_batch_place(user=funded(), coup=coup, bets={"banker": "1000"})
    bet_batch_place(user=funded(), coup=coup, bets={"banker": "500"})  # exactly at the differential
    error = rejected(funded(), coup, {"banker": "200"})
    assert error.code == "max_differential"
    assert error.message == (
        "Banker 1700.00 against Player 0.00 would be over the table's maximum differential of 1500.00 by 200.00: "
        "at most 3000.00 more on Player or 0.00 more on Banker"
    )
    assert error.details == {
        "max_differential": "1500.00",
        "player_total": "0.00",
        "banker_total": "1700.00",
        "over_by": "200.00",
        "player_max_additional": "3000.00",
        "banker_max_additional": "0.00",
    }
    # Tie and side bets are outside the differential (seed 000 §6.1.3).
    bet_batch_place(user=funded(), coup=coup, bets={"tie": "100", "banker_pair": "50"})
    # Bets on Player bring it back within, so Banker may go further.
    bet_batch_place(user=funded(), coup=coup, bets={"player": "300"})
    error = rejected(funded(), coup, {"banker": "400"})
    assert error.details["banker_max_additional"] == "300.00"
    bet_batch_place(user=funded(), coup=coup, bets={"banker": "300"})
    assert coup_bet_totals(coup=coup)["banker"] - coup_bet_totals(coup=coup)["player"] == D("1500.00")


def test_the_player_side_of_the_differential(tight_table):
    coup = CoupFactory(table=tight_table)
    bet_batch_place(user=funded(), coup=coup, bets={"player": "1000"})
    bet_batch_place(user=funded(), coup=coup, bets={"banker": "100"})
    error = rejected(funded(), coup, {"player": "700"})
    assert (error.code, error.details["player_max_additional"], error.details["over_by"]) == (
        "max_differential",
        "600.00",
        "100.00",
    )


def test_an_undo_that_would_breach_the_differential_is_refused(tight_table):
    coup = CoupFactory(table=tight_table)
    player_side = funded()
    bet_batch_place(user=funded(), coup=coup, bets={"banker": "1000"})
    bet_batch_place(user=player_side, coup=coup, bets={"player": "800"})
    bet_batch_place(user=funded(), coup=coup, bets={"banker": "1000"})
    with pytest.raises(BetRejected) as error:
        bet_batch_undo(user=player_side, coup=coup)
    assert error.value.code == "max_differential"
    assert coup_bet_totals(coup=coup, user=player_side) == {"player": D("800.00")}


def test_a_player_may_not_bet_player_and_banker_in_one_coup(player, coup):
    error = rejected(player, coup, {"player": "10", "banker": "10"})
    assert error.code == "player_and_banker"
    assert "may not bet both Player and Banker" in error.message
    bet_batch_place(user=player, coup=coup, bets={"player": "10", "tie": "5"})
    assert rejected(player, coup, {"banker": "10"}).code == "player_and_banker"  # across batches too
    bet_batch_place(user=funded(), coup=coup, bets={"banker": "10"})  # another player may


def test_a_player_may_bet_both_when_the_table_allows_it(player):
    coup = CoupFactory(table=TableFactory(forbid_player_and_banker=False))
    bet_batch_place(user=player, coup=coup, bets={"player": "10", "banker": "10"})


def test_the_player_must_have_the_funds(coup):
    poor = funded("100.00")
    error = rejected(poor, coup, {"player": "80", "tie": "30"})
    assert error.code == "insufficient_funds"
    assert error.message == "the bets total 110.00 but the balance is 100.00: short by 10.00"
    assert error.details == {"balance": "100.00", "required": "110.00", "short_by": "10.00"}
    bet_batch_place(user=poor, coup=coup, bets={"player": "80", "tie": "20"})
    assert wallet_balance(user=poor) == D("0.00")
    assert rejected(poor, coup, {"tie": "1"}).code == "insufficient_funds"


def test_a_player_without_a_wallet_has_no_funds(coup):
    assert rejected(UserFactory(), coup, {"player": "1"}).code == "insufficient_funds"


def test_undo_cancels_the_last_batch_and_refunds_it(player, coup):
    first = bet_batch_place(user=player, coup=coup, bets={"player": "10"}).batch
    second = bet_batch_place(user=player, coup=coup, bets={"player": "20", "tie": "5"}).batch
    assert bet_batch_undo(user=player, coup=coup).pk == second.pk
    assert wallet_balance(user=player) == D("9990.00")
    assert coup_bet_totals(coup=coup, user=player) == {"player": D("10.00")}
    assert set(second.bets.values_list("state", flat=True)) == {Bet.State.CANCELLED}
    second.refresh_from_db()
    assert second.cancellation.kind == LedgerTransaction.Kind.BET_CANCEL and second.cancelled_at
    assert bet_batch_undo(user=player, coup=coup).pk == first.pk
    with pytest.raises(BetRejected) as error:
        bet_batch_undo(user=player, coup=coup)
    assert error.value.code == "no_bets"
    assert wallet_balance(user=player) == D("10000.00")
    assert AuditLog.objects.filter(action="bet_batch_undone").count() == 2
    assert ledger_check().ok


def test_remove_cancels_all_the_players_bets_and_refunds_them(player, coup):
    bet_batch_place(user=player, coup=coup, bets={"player": "10"})
    bet_batch_place(user=player, coup=coup, bets={"player": "20", "tie": "5"})
    other = funded()
    bet_batch_place(user=other, coup=coup, bets={"banker": "30"})
    assert len(bet_remove_all(user=player, coup=coup)) == 2
    assert wallet_balance(user=player) == D("10000.00")
    assert coup_bet_totals(coup=coup) == {"banker": D("30.00")}
    with pytest.raises(BetRejected) as error:
        bet_remove_all(user=player, coup=coup)
    assert error.value.code == "no_bets"


@pytest.mark.parametrize("cancel", [bet_batch_undo, bet_remove_all])
def test_no_undo_or_remove_after_no_more_bets(player, coup, cancel):
    bet_batch_place(user=player, coup=coup, bets={"player": "10"})
    Coup.objects.filter(pk=coup.pk).update(state=Coup.State.NO_MORE_BETS)
    with pytest.raises(BetRejected) as error:
        cancel(user=player, coup=coup)
    assert error.value.code == "betting_closed"
    assert wallet_balance(user=player) == D("9990.00")


def settled(coup, cards="9S 2H KD 3C"):
    coup_resolve(coup, cards)
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
