"""The table page's game history: only the player's own rounds, each with its time, cards, currency and
every bet's state (cancelled and refunded ones too, which the page folds away)."""

from datetime import datetime

import pytest

from casino.lifecycle import coup_void
from casino.lifecycle.settlement import coup_settle
from tables.models import Coup
from tests.factories import CoupFactory, UserFactory, coup_deal_and_resolve
from tests.ui.conftest import fund
from wagering.cancellation import bet_batch_undo
from wagering.placement import bet_batch_place

pytestmark = pytest.mark.django_db


@pytest.fixture
def rounds(player, table):
    """Alice won 10 on Player (and undid a tie bet) in one coup; her bet on the next was refunded by a void."""
    played = CoupFactory(table=table)
    bet_batch_place(user=player, coup=played, bets={"player": "10"})
    bet_batch_place(user=player, coup=played, bets={"tie": "2"})
    bet_batch_undo(user=player, coup=played)
    coup_deal_and_resolve(played, "9S 2H KD 3C")
    coup_settle(coup_id=played.pk)
    voided = CoupFactory(table=table)
    bet_batch_place(user=player, coup=voided, bets={"banker": "5"})
    coup_void(coup=voided, actor=None, reason="test")
    return played, voided


def test_a_round_has_its_time_cards_currency_and_every_bet(player_client, rounds):
    played, voided = rounds
    latest, earlier = player_client.get("/tables/pb1/history/").json()["rounds"]
    assert (latest["round_id"], latest["coup_state"]) == (voided.round_id, "void")
    assert [(bet["bet_type"], bet["state"]) for bet in latest["bets"]] == [("banker", "refunded")]
    assert earlier["round_id"] == played.round_id and earlier["currency"] == "EUR"
    assert datetime.fromisoformat(earlier["played_at"]) == Coup.objects.get(pk=played.pk).resolved_at
    assert (earlier["winner"], earlier["player_total"], earlier["banker_total"]) == ("player", 9, 5)
    assert [(card["hand"], card["card"]) for card in earlier["cards"]] == [
        ("player", "9S"),
        ("banker", "2H"),
        ("player", "KD"),
        ("banker", "3C"),
    ]
    assert [(bet["bet_type"], bet["state"], bet["outcome"]) for bet in earlier["bets"]] == [
        ("player", "settled", "win"),
        ("tie", "cancelled", ""),
    ]
    assert (earlier["staked"], earlier["returned"], earlier["balance_after"]) == ("10.00", "20.00", "1010.00")


def test_a_player_sees_only_their_own_rounds(client, rounds, table):
    bob = UserFactory(username="bob")
    fund(bob, "100")
    client.force_login(bob)
    assert client.get("/tables/pb1/history/").json()["rounds"] == []
    bet_batch_place(user=bob, coup=CoupFactory(table=table), bets={"tie": "3"})
    (own,) = client.get("/tables/pb1/history/").json()["rounds"]
    assert [bet["stake"] for bet in own["bets"]] == ["3.00"] and own["balance_after"] == "97.00"


def test_the_history_reads_a_fixed_number_of_queries(player_client, player, table, django_assert_max_num_queries):
    for _ in range(6):
        coup = CoupFactory(table=table)
        bet_batch_place(user=player, coup=coup, bets={"player": "1"})
        coup_deal_and_resolve(coup, "9S 2H KD 3C")
    with django_assert_max_num_queries(12):
        assert len(player_client.get("/tables/pb1/history/").json()["rounds"]) == 6
