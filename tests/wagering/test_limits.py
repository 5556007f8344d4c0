"""Every limit a placement must keep: the table's per-bet and table-wide limits, personal limit markers,
the maximum differential, Player and Banker in one coup, and the player's funds."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from django.utils import timezone

from tables.models import BetLimit, PersonalLimitMarker
from tests.factories import CoupFactory, TableFactory, UserFactory
from tests.wagering.conftest import funded, rejected
from wagering.cancellation import bet_batch_undo
from wagering.errors import BetRejected
from wagering.placement import bet_batch_place
from wagering.selectors import coup_bet_totals, wallet_balance

D = Decimal


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
    BetLimit.objects.filter(limit_set__table=table, bet_type="player").update(minimum=D("25.00"))
    coup = CoupFactory(table=table)
    assert rejected(player, coup, {"player": "10"}).code == "below_minimum"
    bet_batch_place(user=player, coup=coup, bets={"player": "25"})
    bet_batch_place(user=player, coup=coup, bets={"player": "0.50"})


def marker(player, table, **fields):
    values = {
        "minimum": D("100.00"),
        "maximum": D("5000.00"),
        "valid_from": timezone.now() - timedelta(hours=1),
        "currency": settings.HOUSE_CURRENCY,
        "bet_types": ["player", "banker"],
    }
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
        "Banker 1700.00 against Player 0.00 would be over the table's maximum differential of 1500.00 EUR by 200.00: "
        "at most 3000.00 more on Player or 0.00 more on Banker"
    )
    assert error.details == {
        "max_differential": "1500.00",
        "currency": "EUR",
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
