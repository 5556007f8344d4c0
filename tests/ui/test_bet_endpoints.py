"""The table page's JSON endpoints: every answer, and bad input refused with nothing changed."""

import json
from decimal import Decimal

import pytest
from django.test import Client

from tables.models import Coup
from tests.factories import CoupFactory, UserFactory, coup_deal_and_resolve
from tests.ui.conftest import fund
from wagering.models import Bet
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance

pytestmark = pytest.mark.django_db


def post(client, url, body=None, *, raw=None):
    data = raw if raw is not None else json.dumps(body or {})
    return client.post(url, data=data, content_type="application/json")


def refusal(response, status, code):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    return error


def unchanged(player, balance="1000.00"):
    assert wallet_balance(user=player) == Decimal(balance)
    assert not Bet.objects.filter(user=player, state=Bet.State.ACCEPTED).exists()


def test_confirm_a_batch(player_client, player, coup):
    response = post(
        player_client, "/tables/pb1/bets/", {"bets": {"player": "15.00", "tie": 5}, "round_id": coup.round_id}
    )
    assert response.status_code == 200
    assert response.json() == {
        "ok": True,
        "round_id": coup.round_id,
        "balance": "980.00",
        "bets": {"player": "15.00", "tie": "5.00"},
    }


def test_a_batch_with_a_request_id_is_confirmed_once(player_client, player, coup):
    """The Confirm sent again (no answer came: the network) is answered the same and places nothing more."""
    body = {"bets": {"banker": "20.00"}, "round_id": coup.round_id, "request_id": "c3b1-confirm"}
    first = post(player_client, "/tables/pb1/bets/", body)
    assert first.status_code == 200 and first.json()["balance"] == "980.00"
    again = post(player_client, "/tables/pb1/bets/", body)
    assert again.json() == first.json()
    assert wallet_balance(user=player) == Decimal("980.00") and Bet.objects.filter(user=player).count() == 1
    refusal(post(player_client, "/tables/pb1/bets/", {**body, "bets": {"banker": "30"}}), 409, "idempotency_conflict")
    refusal(post(player_client, "/tables/pb1/bets/", {**body, "request_id": ""}), 400, "invalid_request_id")
    undo = {"round_id": coup.round_id, "request_id": "c3b1-undo"}
    assert post(player_client, "/tables/pb1/bets/undo/", undo).json()["balance"] == "1000.00"
    assert post(player_client, "/tables/pb1/bets/undo/", undo).json()["balance"] == "1000.00"  # not refused: no_bets


def test_the_players_bets_on_the_live_coup(player_client, player, coup):
    bet_batch_place(user=player, coup=coup, bets={"banker": "10"})
    answer = player_client.get("/tables/pb1/bets/").json()
    assert answer == {"ok": True, "round_id": coup.round_id, "balance": "990.00", "bets": {"banker": "10.00"}}


def test_between_coups_there_are_no_bets(player_client, table):
    assert player_client.get("/tables/pb1/bets/").json() == {
        "ok": True,
        "round_id": None,
        "balance": "1000.00",
        "bets": {},
    }


def test_json_numbers_are_read_as_exact_decimals(player_client, player, coup):
    response = post(player_client, "/tables/pb1/bets/", raw='{"bets": {"player": 10.10, "tie": 1.20}}')
    assert response.json()["bets"] == {"player": "10.10", "tie": "1.20"}


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        ('"bets"', "bad_json"),
        (b'{"bets": "\xc3\x28"}', "bad_json"),  # not UTF-8
        ("[" * 2000 + "]" * 2000, "bad_json"),
        ('{"bets": {"player": NaN}}', "bad_json"),
        ('{"bets": {"player": Infinity}}', "bad_json"),
        ('{"bets": {"player": ' + "9" * 5000 + "}}", "bad_request"),
        ('{"bets": ["player", "10"]}', "bad_json"),
        ("{}", "bad_json"),
        ('{"bets": {}}', "empty_batch"),
        ('{"bets": {"dragon": "10"}}', "unknown_bet_type"),
        ('{"bets": {"big": "10"}}', "bet_type_not_offered"),
        ('{"bets": {"player": "-5"}}', "invalid_amount"),
        ('{"bets": {"player": "0"}}', "invalid_amount"),
        ('{"bets": {"player": "NaN"}}', "invalid_amount"),
        ('{"bets": {"player": "1e999"}}', "invalid_amount"),
        ('{"bets": {"player": 1e999}}', "invalid_amount"),
        ('{"bets": {"player": "10.001"}}', "invalid_amount"),
        ('{"bets": {"player": "ten"}}', "invalid_amount"),
        ('{"bets": {"player": true}}', "invalid_amount"),
        ('{"bets": {"player": null}}', "invalid_amount"),
        ('{"bets": {"player": "1000000000000000"}}', "invalid_amount"),
    ],
)
def test_bad_input_is_a_400_and_changes_nothing(player_client, player, coup, raw, code):
    refusal(post(player_client, "/tables/pb1/bets/", raw=raw), 400, code)
    unchanged(player)


def test_player_and_banker_together_are_refused_in_plain_words(player_client, player, coup):
    error = refusal(
        post(player_client, "/tables/pb1/bets/", {"bets": {"player": "5", "banker": "5"}}), 400, "player_and_banker"
    )
    assert error["message"].startswith("a player may not bet both Player and Banker in one coup")
    assert error["details"] == {"player": "5.00", "banker": "5.00"}
    unchanged(player)


def test_over_the_table_maximum_is_refused(player_client, player, coup):
    error = refusal(post(player_client, "/tables/pb1/bets/", {"bets": {"tie": "150"}}), 400, "above_maximum")
    assert "over the table maximum of 100.00" in error["message"]
    unchanged(player)


def test_more_than_the_balance_is_refused(player_client, player, coup):
    refusal(
        post(player_client, "/tables/pb1/bets/", {"bets": {"player": "1000", "tie": "100"}}), 400, "insufficient_funds"
    )
    unchanged(player)


def test_no_bets_after_no_more_bets(player_client, player, coup):
    Coup.objects.filter(pk=coup.pk).update(state=Coup.State.NO_MORE_BETS)
    refusal(post(player_client, "/tables/pb1/bets/", {"bets": {"player": "5"}}), 409, "betting_closed")
    unchanged(player)


def test_no_bets_without_a_live_coup(player_client, player, table):
    error = refusal(post(player_client, "/tables/pb1/bets/", {"bets": {"player": "5"}}), 409, "no_live_coup")
    assert error["message"] == "there is no coup on Punto Banco 1 right now: wait for the next one"
    unchanged(player)


def test_no_bets_on_a_round_that_is_over(player_client, player, coup):
    body = {"bets": {"player": "5"}, "round_id": "PB1-0000000000"}
    error = refusal(post(player_client, "/tables/pb1/bets/", body), 409, "round_changed")
    assert error["details"] == {"round_id": "PB1-0000000000", "live_round_id": coup.round_id}
    unchanged(player)


def test_undo_cancels_the_last_confirmed_batch(player_client, player, coup):
    post(player_client, "/tables/pb1/bets/", {"bets": {"player": "10"}})
    post(player_client, "/tables/pb1/bets/", {"bets": {"player": "5", "tie": "5"}})
    answer = post(player_client, "/tables/pb1/bets/undo/", {"round_id": coup.round_id}).json()
    assert answer["bets"] == {"player": "10.00"} and answer["balance"] == "990.00"


def test_undo_and_remove_need_bets_to_cancel(player_client, player, coup):
    refusal(post(player_client, "/tables/pb1/bets/undo/"), 409, "no_bets")
    refusal(post(player_client, "/tables/pb1/bets/remove/"), 409, "no_bets")
    unchanged(player)


def test_remove_cancels_every_bet(player_client, player, coup):
    post(player_client, "/tables/pb1/bets/", {"bets": {"player": "10"}})
    post(player_client, "/tables/pb1/bets/", {"bets": {"tie": "5"}})
    answer = post(player_client, "/tables/pb1/bets/remove/").json()
    assert answer["bets"] == {} and answer["balance"] == "1000.00"


@pytest.fixture
def previous_bets(player, table):
    """The player bet 10 on Player and 2 on the tie in the table's last coup."""
    earlier = CoupFactory(table=table)
    bet_batch_place(user=player, coup=earlier, bets={"player": "10", "tie": "2"})
    coup_deal_and_resolve(earlier, "9S 2H KD 3C")
    return earlier


def test_rebet_and_rebet_double(player_client, player, previous_bets, coup):
    assert post(player_client, "/tables/pb1/bets/rebet/").json()["bets"] == {"player": "10.00", "tie": "2.00"}
    answer = post(player_client, "/tables/pb1/bets/rebet/", {"multiplier": 2}).json()
    assert answer["bets"] == {"player": "30.00", "tie": "6.00"} and answer["balance"] == "952.00"


@pytest.mark.parametrize("multiplier", ["2", 2.0, True, 3, 0, None, [2]])
def test_rebet_takes_a_multiplier_of_one_or_two(player_client, player, previous_bets, coup, multiplier):
    refusal(post(player_client, "/tables/pb1/bets/rebet/", {"multiplier": multiplier}), 400, "invalid_multiplier")
    assert not Bet.objects.filter(coup=coup).exists()


def test_rebet_needs_earlier_bets(player_client, player, coup):
    refusal(post(player_client, "/tables/pb1/bets/rebet/"), 409, "no_previous_bets")


def test_anonymous_requests_get_a_json_401(client, coup):
    refusal(post(client, "/tables/pb1/bets/", {"bets": {"player": "5"}}), 401, "not_signed_in")
    refusal(client.get("/tables/pb1/history/"), 401, "not_signed_in")


def test_an_unknown_table_is_a_json_404(player_client, db):
    refusal(post(player_client, "/tables/nope/bets/", {"bets": {"player": "5"}}), 404, "no_such_table")


def test_the_actions_are_posts(player_client, coup):
    for action in ("undo", "remove", "rebet"):
        assert player_client.get(f"/tables/pb1/bets/{action}/").status_code == 405
    assert player_client.put("/tables/pb1/bets/").status_code == 405


def test_posts_need_the_csrf_token(player, coup):
    client = Client(enforce_csrf_checks=True)
    client.force_login(player)
    assert post(client, "/tables/pb1/bets/", {"bets": {"player": "5"}}).status_code == 403
    client.get("/tables/pb1/")
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/tables/pb1/bets/",
        json.dumps({"bets": {"player": "5"}}),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 200


def test_the_game_history(player_client, player, previous_bets, table):
    other = UserFactory()
    fund(other, "50")
    answer = player_client.get("/tables/pb1/history/").json()
    (result,) = answer["results"]
    assert result["round_id"] == previous_bets.round_id and result["winner"] == previous_bets.winner
    assert [card["card"] for card in result["cards"]] == ["9S", "2H", "KD", "3C"]
    (round_,) = answer["rounds"]
    assert round_["round_id"] == previous_bets.round_id
    assert round_["staked"] == "12.00" and round_["balance_before"] == "1000.00"
    assert [(bet["bet_type"], bet["stake"]) for bet in round_["bets"]] == [("player", "10.00"), ("tie", "2.00")]


def test_more_bet_requests_in_a_second_than_a_socket_allows_are_refused(player_client, player, coup, monkeypatch):
    """A script cannot flood the table's intake through the endpoints instead of the socket: a player's bet
    requests beyond a socket's burst in one second are a 429 and change nothing; a second later, they go."""
    from casino.players import api as player_api
    from casino.players.intake import BET_REQUEST_BURST

    monkeypatch.setattr(player_api, "BET_REQUEST_BURST", BET_REQUEST_BURST)  # as deployed (tests lift it)
    now = [1_900_000_000.0]
    monkeypatch.setattr(player_api.time, "time", lambda: now[0])
    for _ in range(BET_REQUEST_BURST // 2):
        assert post(player_client, "/tables/pb1/bets/", {"bets": {"tie": "1.00"}}).status_code == 200
        assert post(player_client, "/tables/pb1/bets/undo/").status_code == 200
    assert player_client.get("/tables/pb1/bets/").status_code == 200  # reading is not betting
    refusal(post(player_client, "/tables/pb1/bets/", {"bets": {"tie": "1.00"}}), 429, "too_fast")
    refusal(post(player_client, "/tables/pb1/bets/remove/"), 429, "too_fast")
    unchanged(player)
    other = UserFactory(username="bob")
    fund(other, "100.00")
    other_client = Client()
    other_client.force_login(other)
    assert post(other_client, "/tables/pb1/bets/", {"bets": {"tie": "1.00"}}).status_code == 200  # theirs are theirs
    now[0] += 1
    assert post(player_client, "/tables/pb1/bets/", {"bets": {"tie": "1.00"}}).json()["balance"] == "999.00"


def test_a_bet_goes_on_when_the_allowance_cannot_be_counted(player_client, player, coup, monkeypatch):
    """The cache out of order (Redis down) is no reason to refuse every bet: the request goes on."""
    from casino.players import api as player_api
    from casino.players.intake import BET_REQUEST_BURST

    def down(*args, **kwargs):
        raise ConnectionError("the cache is down")

    monkeypatch.setattr(player_api, "BET_REQUEST_BURST", BET_REQUEST_BURST)
    monkeypatch.setattr(player_api, "window_count", down)
    response = post(player_client, "/tables/pb1/bets/", {"bets": {"tie": "1.00"}, "round_id": coup.round_id})
    assert response.status_code == 200 and response.json()["balance"] == "999.00"
