"""A table dealt on demand in the partner API (issue 30): the player's shoe committed before the first deal,
Deal and Rebet and deal once per Idempotency-Key, another partner's player refused, every bad input refused
with nothing changed, the bets endpoint pointing to Deal, the table listed with its mode, the schema."""

from __future__ import annotations

import hashlib
from decimal import Decimal

import pytest
import yaml
from rest_framework.test import APIClient

from partners import webhooks
from partners.models import PartnerIdempotencyKey, WebhookDelivery
from tables.models import Coup, Shoe, Table
from tests.partners.conftest import player_make
from wagering.checks import ledger_check, settlement_check
from wagering.models import Bet, BetRequest, LedgerTransaction
from wagering.selectors import wallet_balance

pytestmark = pytest.mark.django_db
URL = "/api/v1/tables/rng5/deal/"


@pytest.fixture
def commitment(api, player, rng_table) -> str:
    return api.get(f"{URL}?player_id=p-1").json()["shoe"]["commitment"]


def deal(api, body: dict, key: str | None = None, url: str = URL):
    headers = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": key}
    return api.post(url, body, format="json", **headers)


def world() -> tuple:
    """What a refused deal must leave as it was: coups, bets, money, every key and request recorded."""
    return (
        Coup.objects.count(),
        Bet.objects.count(),
        LedgerTransaction.objects.count(),
        PartnerIdempotencyKey.objects.count(),
        BetRequest.objects.count(),
    )


def test_the_shoe_is_committed_before_the_first_deal_and_is_the_players_own(api, player, rng_table):
    answer = api.get(f"{URL}?player_id=p-1")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    shoe = Shoe.objects.get(player=player.user, table=rng_table)
    assert body["table"] == "rng5" and body["player_id"] == "p-1"
    assert body["shoe"]["commitment"] == shoe.commitment and len(shoe.commitment) == 64
    assert (body["shoe"]["decks"], body["shoe"]["coups"], body["shoe"]["cards_left"]) == (
        4,
        0,
        shoe.decks * 52 - shoe.position,
    )
    assert "card_order" not in body["shoe"] and "salt" not in body["shoe"]
    assert api.get(f"{URL}?player_id=p-1").json() == body  # the same shoe, shown again
    assert Shoe.objects.filter(player=player.user).count() == 1


def test_deal_then_rebet_and_deal(api, partner, player, commitment):
    webhooks.webhook_endpoint_create(partner=partner, url="https://partner.example/hooks")
    first = deal(api, {"player_id": "p-1", "bets": {"banker": "10"}, "commitment": commitment}, "k-1")
    assert first.status_code == 201, first.content
    assert "Idempotent-Replayed" not in first
    answer = first.json()
    coup = Coup.objects.get(round_id=answer["round_id"])
    assert coup.state == Coup.State.SETTLED and coup.player_id == player.user.pk
    assert [card["card"] for card in answer["cards"]] == list(
        coup.cards.order_by("position").values_list("card", flat=True)
    )
    assert (answer["winner"], answer["player_total"], answer["banker_total"]) == (
        coup.winner,
        coup.player_total,
        coup.banker_total,
    )
    assert answer["bets"] == {"banker": "10.00"} and answer["currency"] == "EUR"
    returned = {"banker": Decimal("19.50"), "player": Decimal(0), "tie": Decimal("10.00")}[coup.winner]
    assert Decimal(answer["total_returned"]) == returned
    assert Decimal(answer["balance"]) == wallet_balance(user=player.user) == Decimal("990.00") + returned
    assert answer["shoe"]["commitment"] == commitment and answer["shoe"]["coups"] == 1

    again = deal(api, {"player_id": "p-1", "rebet": True, "commitment": commitment}, "k-2")
    assert again.status_code == 201, again.content
    assert again.json()["bets"] == {"banker": "10.00"} and again.json()["round_id"] != answer["round_id"]
    assert Coup.objects.filter(player=player.user, state=Coup.State.SETTLED).count() == 2
    # The same round ids as every other table: the round and the player's history know it.
    round_ = api.get(f"/api/v1/rounds/{answer['round_id']}/").json()
    assert round_["table"] == "rng5" and [bet["stake"] for bet in round_["bets"]] == ["10.00"]
    history = api.get("/api/v1/players/p-1/rounds/?table=rng5").json()
    assert history["count"] == 2
    settled = WebhookDelivery.objects.get(coup=coup, event_type="round.settled").payload["data"]
    assert settled["players"] == [
        {"player_id": "p-1", "staked": "10.00", "returned": answer["total_returned"], "balance": answer["balance"]}
    ]
    assert ledger_check().ok and settlement_check(finished=False).problems == []


def test_one_key_deals_once_and_answers_the_same_again(api, player, commitment):
    body = {"player_id": "p-1", "bets": {"player": "5.00", "tie": "1"}, "commitment": commitment}
    first = deal(api, body, "same")
    balance = wallet_balance(user=player.user)
    replayed = deal(api, {**body, "bets": {"tie": "1.00", "player": "5"}}, "same")  # the same amounts
    assert replayed.status_code == 201 and replayed["Idempotent-Replayed"] == "true"
    assert replayed.json() == first.json()
    assert Coup.objects.filter(player=player.user).count() == 1 and wallet_balance(user=player.user) == balance

    other_player = player_make(player.partner, "p-2")
    BetRequest.objects.all().delete()  # the deal's own record forgotten (after BET_REQUEST_RETENTION_HOURS)
    before = world()
    forgotten = deal(api, body, "same")
    assert (forgotten.status_code, forgotten.json()["error"]["code"]) == (409, "idempotency_conflict")
    assert forgotten.json()["error"]["details"]["round_id"] == first.json()["round_id"]
    conflict = deal(api, {**body, "bets": {"player": "6.00"}}, "same")
    assert conflict.status_code == 409 and conflict.json()["error"]["code"] == "idempotency_conflict"
    assert deal(api, {**body, "player_id": "p-2"}, "same").json()["error"]["code"] == "idempotency_conflict"
    assert world() == before and wallet_balance(user=other_player.user) == Decimal("1000.00")


def test_a_key_of_a_bet_is_not_a_deal(api, player, commitment, coup):
    bet = {"table": "pb1", "bets": {"player": "5"}}
    assert api.post("/api/v1/players/p-1/bets/", bet, format="json", HTTP_IDEMPOTENCY_KEY="b").status_code == 201
    before = world()
    refused = deal(api, {"player_id": "p-1", "bets": {"player": "5"}, "commitment": commitment}, "b")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "idempotency_conflict"
    assert world() == before


def test_another_partners_player_is_not_found(api, other_api, other_partner, player, commitment):
    player_make(other_partner, "q-1")
    before = world()
    assert other_api.get(f"{URL}?player_id=p-1").json()["error"]["code"] == "player_not_found"
    refused = deal(other_api, {"player_id": "p-1", "bets": {"banker": "10"}, "commitment": commitment}, "x")
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "player_not_found"
    assert world() == before and wallet_balance(user=player.user) == Decimal("1000.00")
    assert APIClient().post(URL, {}, format="json").status_code == 401


COMMIT = "COMMIT"


@pytest.mark.parametrize(
    ("body", "key", "status", "code"),
    [
        ({"player_id": "p-1", "bets": {"player": "10"}}, "k", 400, "invalid_request"),  # no commitment
        ({"player_id": "p-1", "bets": {"player": "10"}, "commitment": "abc"}, "k", 400, "invalid_request"),
        ({"player_id": "p-1", "bets": {"player": "10"}, "commitment": "A" * 64}, "k", 400, "invalid_request"),
        ({"player_id": "p-1", "bets": {"player": "10"}, "commitment": COMMIT}, None, 400, "invalid_idempotency_key"),
        ({"player_id": "p-1", "bets": {"player": "10"}, "commitment": COMMIT}, "a b", 400, "invalid_idempotency_key"),
        (
            {"player_id": "p-1", "bets": {"player": "10"}, "commitment": COMMIT},
            "k" * 256,
            400,
            "invalid_idempotency_key",
        ),
        ({"bets": {"player": "10"}, "commitment": COMMIT}, "k", 400, "invalid_request"),  # no player
        ({"player_id": 1, "bets": {"player": "10"}, "commitment": COMMIT}, "k", 400, "invalid_request"),
        ({"player_id": "p-9", "bets": {"player": "10"}, "commitment": COMMIT}, "k", 404, "player_not_found"),
        ({"player_id": "p-1", "commitment": COMMIT}, "k", 400, "invalid_request"),  # neither bets nor rebet
        ({"player_id": "p-1", "rebet": False, "commitment": COMMIT}, "k", 400, "invalid_request"),
        (
            {"player_id": "p-1", "bets": {"player": "1"}, "rebet": True, "commitment": COMMIT},
            "k",
            400,
            "invalid_request",
        ),
        ({"player_id": "p-1", "rebet": "yes", "commitment": COMMIT}, "k", 400, "invalid_request"),
        ({"player_id": "p-1", "rebet": 1, "commitment": COMMIT}, "k", 400, "invalid_request"),
        ({"player_id": "p-1", "rebet": True, "commitment": COMMIT}, "k", 409, "no_previous_bets"),
        ({"player_id": "p-1", "bets": {}, "commitment": COMMIT}, "k", 400, "invalid_request"),
        ({"player_id": "p-1", "bets": ["player", "10"], "commitment": COMMIT}, "k", 400, "invalid_request"),
        ({"player_id": "p-1", "bets": {"player": 10}, "commitment": COMMIT}, "k", 400, "invalid_request"),
        ({"player_id": "p-1", "bets": {"player": "-5"}, "commitment": COMMIT}, "k", 400, "invalid_request"),
        ({"player_id": "p-1", "bets": {"player": "1.001"}, "commitment": COMMIT}, "k", 400, "invalid_request"),
        ({"player_id": "p-1", "bets": {"dragon": "1"}, "commitment": COMMIT}, "k", 400, "invalid_request"),
        ({"player_id": "p-1", "bets": {"player": "99999999"}, "commitment": COMMIT}, "k", 400, "above_maximum"),
        (
            {"player_id": "p-1", "bets": {"player": "1", "banker": "1"}, "commitment": COMMIT},
            "k",
            400,
            "player_and_banker",
        ),
        ({"player_id": "p-1", "bets": {"player": "10"}, "commitment": "0" * 64}, "k", 400, "shoe_changed"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(api, player, commitment, body, key, status, code):
    body = {name: commitment if value == COMMIT else value for name, value in body.items()}
    before = world()
    refused = deal(api, body, key)
    assert (refused.status_code, refused.json()["error"]["code"]) == (status, code), refused.content
    assert world() == before and wallet_balance(user=player.user) == Decimal("1000.00")
    if key == "k":  # a refused request leaves no trace: its key may be sent again
        assert (
            deal(api, {"player_id": "p-1", "bets": {"player": "1"}, "commitment": commitment}, "k").status_code == 201
        )


def test_not_json_and_other_tables_are_refused(api, player, commitment, table, rng_table):
    before = world()
    body = {"player_id": "p-1", "bets": {"player": "10"}, "commitment": commitment}
    assert api.post(URL, "{not json", content_type="application/json", HTTP_IDEMPOTENCY_KEY="j").status_code == 400
    assert api.post(URL, "player_id=p-1", content_type="application/x-www-form-urlencoded").status_code == 415
    assert deal(api, body, "n", url="/api/v1/tables/pb1/deal/").json()["error"]["code"] == "not_rng"
    assert deal(api, body, "n", url="/api/v1/tables/nope/deal/").json()["error"]["code"] == "table_not_found"
    assert api.get("/api/v1/tables/pb1/deal/?player_id=p-1").json()["error"]["code"] == "not_rng"
    assert api.get(f"{URL}?player_id=p-1&page=2").status_code == 400  # a parameter it does not know
    assert api.get(URL).json()["error"]["code"] == "invalid_request"
    Table.objects.filter(pk=rng_table.pk).update(is_open=False)
    assert deal(api, body, "n").json()["error"]["code"] == "table_closed"
    assert world() == before


def test_a_deal_the_wallet_cannot_pay_is_refused(api, partner, rng_table):
    player_make(partner, "p-5", balance="5.00")
    commitment = api.get(f"{URL}?player_id=p-5").json()["shoe"]["commitment"]
    before = world()
    refused = deal(api, {"player_id": "p-5", "bets": {"player": "10"}, "commitment": commitment}, "f")
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, "insufficient_funds")
    assert world() == before


def test_an_excluded_player_cannot_deal(api, player, commitment):
    assert api.post("/api/v1/players/p-1/exclusion/", {}, format="json").status_code in (200, 201)
    before = world()
    refused = deal(api, {"player_id": "p-1", "bets": {"player": "10"}, "commitment": commitment}, "e")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "self_excluded"
    assert world() == before


def test_the_bets_endpoint_at_a_table_dealt_on_demand_points_to_deal(api, player, rng_table):
    before = world()
    refused = api.post(
        "/api/v1/players/p-1/bets/", {"table": "rng5", "bets": {"player": "5"}}, format="json", HTTP_IDEMPOTENCY_KEY="r"
    )
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "dealt_on_demand" and error["details"]["deal"] == URL and URL in error["message"]
    assert world() == before


def test_the_table_list_shows_the_mode_and_no_betting_window(api, rng_table, table):
    listed = {each["code"]: each for each in api.get("/api/v1/tables/").json()["results"]}
    assert (listed["rng5"]["dealing_mode"], listed["rng5"]["rules"]["betting_seconds"]) == ("rng", None)
    assert (listed["pb1"]["dealing_mode"], listed["pb1"]["rules"]["betting_seconds"]) == ("automatic", 15)
    detail = api.get("/api/v1/tables/rng5/").json()
    assert (detail["dealing_mode"], detail["rules"]["betting_seconds"], detail["rules"]["decks"]) == ("rng", None, 4)


def test_the_shoe_ended_by_the_cut_card_is_revealed_and_verifies(api, player, commitment, rng_table):
    """The cut card placed early: the coup after the one that brings it out ends the shoe, which is revealed,
    and the player's next shoe is new (committed)."""
    shoe = Shoe.objects.get(player=player.user)
    Shoe.objects.filter(pk=shoe.pk).update(cut_card_position=shoe.position + 1)
    answers = []
    while not answers or answers[-1]["shoe_ended"] is None:
        assert len(answers) < 3
        body = {"player_id": "p-1", "bets": {"banker": "1"}, "commitment": commitment}
        answers.append(deal(api, body, f"c-{len(answers)}").json())
    answer, ended = answers[-1], answers[-1]["shoe_ended"]
    order = f"{ended['salt']}:{' '.join(ended['card_order'])}"
    assert ended["number"] == shoe.number and hashlib.sha256(order.encode()).hexdigest() == commitment
    assert answer["shoe"]["commitment"] != commitment and answer["shoe"]["coups"] == 0
    assert api.get(f"{URL}?player_id=p-1").json()["shoe"] == answer["shoe"]
    fairness = api.get(f"/api/v1/tables/rng5/shoes/{shoe.number}/").json()
    assert fairness["revealed"] is True and fairness["verification"]["ok"] is True


def test_the_schema_describes_deal(db):
    document = yaml.safe_load(APIClient().get("/api/schema/").content)
    operations = document["paths"]["/api/v1/tables/{code}/deal/"]
    assert operations["post"]["operationId"] == "deal_create" and operations["get"]["operationId"] == "deal_shoe_get"
    assert {"201", "400", "404", "409", "413", "415", "429"} <= set(operations["post"]["responses"])
    assert any(parameter["name"] == "Idempotency-Key" for parameter in operations["post"]["parameters"])
    body = document["components"]["schemas"]["Deal"]
    assert set(body["required"]) == {"player_id", "commitment"} and body["properties"]["rebet"]["type"] == "boolean"
    answer = document["components"]["schemas"]["DealResult"]["properties"]
    assert {"round_id", "cards", "winner", "bets", "returned", "balance", "shoe"} <= set(answer)


def test_a_partner_sees_its_own_players_private_rounds_and_shoes_never_anothers(api, other_api, commitment):
    dealt = deal(api, {"player_id": "p-1", "bets": {"banker": "10"}, "commitment": commitment}, "d-1")
    assert dealt.status_code == 201, dealt.content
    round_id, shoe_number = dealt.json()["round_id"], dealt.json()["shoe_number"]
    for client, seen in ((api, True), (other_api, False)):
        listed = [record["round_id"] for record in client.get("/api/v1/tables/rng5/rounds/").json()["results"]]
        assert (round_id in listed) is seen
        assert client.get(f"/api/v1/rounds/{round_id}/").status_code == (200 if seen else 404)
        assert client.get(f"/api/v1/tables/rng5/shoes/{shoe_number}/").status_code == (200 if seen else 404)
