"""A table dealt on demand (issue 30): its page and its Deal endpoint, every bad input refused with nothing
changed (no coup, no bet, no money moved)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.test import Client

from casino.lifecycle.rng import rng_shoe_ready
from tables.models import Coup, Shoe, Table
from tests.factories import UserFactory, staff_login
from tests.ui.conftest import fund
from tests.ui.test_bet_endpoints import post, refusal
from wagering.selectors import wallet_balance

pytestmark = pytest.mark.django_db
URL = "/tables/rng5/deal/"


@pytest.fixture
def commitment(rng_table, player) -> str:
    return rng_shoe_ready(table=rng_table, player=player).commitment


def nothing_dealt(player, balance="1000.00"):
    assert wallet_balance(user=player) == Decimal(balance)
    assert not Coup.objects.filter(player=player).exists()


def test_the_page_shows_the_shoes_commitment_before_the_first_deal(player_client, player, rng_table):
    page = player_client.get("/tables/rng5/").content.decode()
    shoe = Shoe.objects.get(player=player)
    assert shoe.commitment in page and "Rebet and deal" in page and "data-timer" not in page
    assert shoe.decks == 4 and shoe.state == Shoe.State.IN_PLAY
    player_client.get("/tables/rng5/")
    assert Shoe.objects.filter(player=player).count() == 1  # the same shoe, shown again


def test_deal_and_rebet_and_deal(player_client, player, commitment):
    first = post(player_client, URL, {"bets": {"banker": "10.00"}, "commitment": commitment, "request_id": "d-1"})
    assert first.status_code == 200, first.content
    answer = first.json()
    assert answer["ok"] is True and answer["bets"] == {"banker": "10.00"} and answer["shoe"]["commitment"] == commitment
    body = {"bets": {"banker": "10.00"}, "commitment": commitment, "request_id": "d-1"}
    assert post(player_client, URL, body).json() == {**answer, "replayed": True}
    again = post(player_client, URL, {"rebet": True, "commitment": commitment, "request_id": "d-2"}).json()
    assert again["bets"] == {"banker": "10.00"} and again["round_id"] != answer["round_id"]
    assert Coup.objects.filter(player=player, state=Coup.State.SETTLED).count() == 2


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"bets": {"player": "10"}, "request_id": "x"}, 400, "bad_json"),  # no commitment
        ({"bets": {"player": "10"}, "commitment": "abc", "request_id": "x"}, 400, "bad_json"),
        ({"bets": {"player": "10"}, "commitment": "COMMIT"}, 400, "invalid_request_id"),
        ({"bets": {"player": "10"}, "commitment": "COMMIT", "request_id": ""}, 400, "invalid_request_id"),
        ({"bets": {"player": "10"}, "commitment": "COMMIT", "request_id": "x" * 65}, 400, "invalid_request_id"),
        ({"bets": {"player": "10"}, "commitment": "COMMIT", "request_id": 7}, 400, "invalid_request_id"),
        ({"bets": {"player": "10"}, "commitment": "COMMIT", "request_id": "api-1"}, 400, "invalid_request_id"),
        ({"commitment": "COMMIT", "request_id": "x"}, 400, "bad_json"),  # neither bets nor rebet
        ({"bets": {"player": "10"}, "rebet": True, "commitment": "COMMIT", "request_id": "x"}, 400, "bad_json"),
        ({"bets": ["player", 10], "commitment": "COMMIT", "request_id": "x"}, 400, "bad_json"),
        ({"rebet": "yes", "commitment": "COMMIT", "request_id": "x"}, 400, "bad_json"),
        ({"rebet": True, "commitment": "COMMIT", "request_id": "x"}, 409, "no_previous_bets"),
        ({"bets": {"player": "-5"}, "commitment": "COMMIT", "request_id": "x"}, 400, "invalid_amount"),
        ({"bets": {"player": 1e400}, "commitment": "COMMIT", "request_id": "x"}, 400, "invalid_amount"),
        ({"bets": {"player": None}, "commitment": "COMMIT", "request_id": "x"}, 400, "invalid_amount"),
        ({"bets": {"player": {"a": 1}}, "commitment": "COMMIT", "request_id": "x"}, 400, "invalid_amount"),
        ({"bets": {"player": "99999999999"}, "commitment": "COMMIT", "request_id": "x"}, 400, "above_maximum"),
        ({"bets": {"player": "1" * 40}, "commitment": "COMMIT", "request_id": "x"}, 400, "invalid_amount"),
        ({"bets": {"player": "1", "banker": "1"}, "commitment": "COMMIT", "request_id": "x"}, 400, "player_and_banker"),
        ({"bets": {"player": "10"}, "commitment": "0" * 64, "request_id": "x"}, 400, "shoe_changed"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(player_client, player, commitment, body, status, code):
    body = {key: commitment if value == "COMMIT" else value for key, value in body.items()}
    raw = json.dumps(body).replace("Infinity", "1e400")
    refusal(post(player_client, URL, raw=raw), status, code)
    nothing_dealt(player)


def test_not_json_is_refused(player_client, player, commitment):
    refusal(post(player_client, URL, raw="{not json"), 400, "bad_json")
    refusal(post(player_client, URL, raw="[1, 2]"), 400, "bad_json")
    nothing_dealt(player)


def test_who_may_deal(client, player, commitment, rng_table):
    body = {"bets": {"player": "10"}, "commitment": commitment, "request_id": "w"}
    refusal(post(client, URL, body), 401, "not_signed_in")
    staff = UserFactory(username="pitboss", is_staff=True)
    fund(staff, "1000.00")
    staff_login(client, staff)
    refusal(post(client, URL, body), 403, "staff_account")
    client.force_login(player)
    refusal(post(client, "/tables/nope/deal/", body), 404, "no_such_table")
    assert client.get(URL).status_code == 405
    nothing_dealt(player)


def test_at_a_table_with_a_betting_window_deal_is_refused(player_client, player, commitment, table):
    body = {"bets": {"player": "10"}, "commitment": commitment, "request_id": "a"}
    refusal(post(player_client, f"/tables/{table.code}/deal/", body), 400, "not_rng")
    nothing_dealt(player)


def test_a_closed_table_deals_nothing(player_client, player, commitment, rng_table):
    Table.objects.filter(pk=rng_table.pk).update(is_open=False)
    body = {"bets": {"player": "10"}, "commitment": commitment, "request_id": "c"}
    refusal(post(player_client, URL, body), 400, "table_closed")
    nothing_dealt(player)
    assert "This table is closed" in player_client.get("/tables/rng5/").content.decode()


def test_posts_need_the_csrf_token(player, commitment):
    client = Client(enforce_csrf_checks=True)
    client.force_login(player)
    body = json.dumps({"bets": {"player": "5"}, "commitment": commitment, "request_id": "t"})
    assert client.post(URL, body, content_type="application/json").status_code == 403
    nothing_dealt(player)
    client.get("/tables/rng5/")
    token = client.cookies["csrftoken"].value
    assert client.post(URL, body, content_type="application/json", HTTP_X_CSRFTOKEN=token).status_code == 200


def test_a_deal_never_shuffles_a_shoe(player_client, player, rng_table, monkeypatch):
    """A player with no shoe in play (page never opened, or their shoe closed as idle) who posts Deal is refused
    without a shoe being made: a refused deal that shuffled one under the table's lock, only to roll it back,
    would let anyone shuffle shoes at the request rate."""
    from tables import private_coups

    made = []
    prepare = private_coups.shoe_prepare
    monkeypatch.setattr(private_coups, "shoe_prepare", lambda **kw: made.append(1) or prepare(**kw))
    for n in range(3):
        body = {"bets": {"banker": "10"}, "commitment": "ab" * 32, "request_id": f"x-{n}"}
        refusal(post(player_client, URL, body), 400, "shoe_changed")
    assert made == [] and not Shoe.objects.filter(player=player).exists()
    nothing_dealt(player)
