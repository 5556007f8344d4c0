"""Bets for a player on a table's coup (all or none, with the UI's limits), rounds and game history."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from casino import lifecycle
from casino.lifecycle.settlement import coup_settle
from partners.models import PartnerIdempotencyKey
from tables.models import Coup
from tests.factories import CoupFactory, TableFactory, coup_deal_and_resolve
from tests.partners.conftest import idempotency_key, player_make
from wagering.checks import ledger_check
from wagering.models import Bet
from wagering.selectors import wallet_balance

D = Decimal
PLAYER_NATURAL_9 = "9S 2H KD 3C"


def place(api, bets, player_id="p-1", table="pb1", key=None, **body):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else idempotency_key()
    return api.post(f"/api/v1/players/{player_id}/bets/", {"table": table, "bets": bets, **body}, **headers)


def settle(coup, cards=PLAYER_NATURAL_9):
    coup_deal_and_resolve(coup, cards)
    coup_settle(coup_id=coup.pk)


def test_a_batch_is_placed_on_the_coup_taking_bets(api, player, coup):
    response = place(api, {"banker": "25.00", "tie": "5"})
    assert response.status_code == 201
    body = response.json()
    assert body == {
        "batch_id": body["batch_id"],
        "round_id": coup.round_id,
        "table": "pb1",
        "player_id": "p-1",
        "currency": "EUR",
        "bets": [
            {"id": body["bets"][0]["id"], "bet_type": "banker", "stake": "25.00"},
            {"id": body["bets"][1]["id"], "bet_type": "tie", "stake": "5.00"},
        ],
        "total": "30.00",
        "balance": "970.00",
        "placed_at": body["placed_at"],
    }
    assert wallet_balance(user=player.user) == D("970.00")
    assert ledger_check().ok


def test_the_round_id_if_given_must_be_the_coup_taking_bets(api, player, coup):
    assert place(api, {"banker": "10"}, round_id=coup.round_id).status_code == 201
    response = place(api, {"banker": "10"}, round_id="PB1-OLDROUND")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "round_not_current"
    assert response.json()["error"]["details"] == {"round_id": "PB1-OLDROUND", "current_round_id": coup.round_id}


@pytest.mark.parametrize(
    ("bets", "code", "details"),
    [
        (
            {"banker": "1500.00"},
            "above_maximum",
            {"bet_type": "banker", "maximum": "1000.00", "over_by": "500.00", "max_additional": "1000.00"},
        ),
        ({"tie": "0.50"}, "below_minimum", {"bet_type": "tie", "minimum": "1.00", "short_by": "0.50"}),
        ({"player": "10", "banker": "10"}, "player_and_banker", {"player": "10.00", "banker": "10.00"}),
        ({"banker": "990", "tie": "20"}, "insufficient_funds", {"required": "1010.00", "short_by": "10.00"}),
        ({"either_pair": "5"}, "bet_type_not_offered", {"bet_type": "either_pair"}),
    ],
)
def test_a_refused_batch_says_which_limit_and_by_how_much_and_places_nothing(api, player, coup, bets, code, details):
    response = place(api, bets, key="refused")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code
    assert details.items() <= error["details"].items()
    assert not Bet.objects.exists() and wallet_balance(user=player.user) == D("1000.00")
    assert not PartnerIdempotencyKey.objects.filter(key="refused").exists()  # the key can be used again


def test_the_table_maximum_counts_every_players_bets(partner, api, player):
    table = TableFactory(code="pb3", limits={"tie": ("1.00", "300.00", "500.00")})
    CoupFactory(table=table, betting_closes_at=timezone.now() + timedelta(minutes=5))
    for player_id in ("p-2", "p-3"):
        player_make(partner, player_id)
        assert place(api, {"tie": "200"}, player_id=player_id, table="pb3").status_code == 201
    response = place(api, {"tie": "100.01"}, table="pb3")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "table_maximum"
    assert (error["details"]["over_by"], error["details"]["max_additional"]) == ("0.01", "100.00")


def test_betting_closed_is_409(api, player, coup):
    Coup.objects.filter(pk=coup.pk).update(betting_closes_at=timezone.now() - timedelta(seconds=1))
    response = place(api, {"banker": "10"})
    assert response.status_code == 409 and response.json()["error"]["code"] == "betting_closed"
    Coup.objects.filter(pk=coup.pk).update(state=Coup.State.DEALING)
    assert place(api, {"banker": "10"}).json()["error"]["code"] == "betting_closed"


def test_a_table_without_a_coup_is_409_and_an_unknown_table_404(api, player, table):
    response = place(api, {"banker": "10"})
    assert response.status_code == 409 and response.json()["error"]["code"] == "betting_closed"
    response = place(api, {"banker": "10"}, table="nope")
    assert response.status_code == 404 and response.json()["error"]["code"] == "table_not_found"


@pytest.mark.parametrize(
    "bets",
    [{}, {"dragon": "10"}, {"banker": 10}, {"banker": "-1"}, {"banker": "0"}, {"banker": "1.234"}, [], "banker"],
)
def test_malformed_bets_are_400(api, player, coup, bets):
    response = place(api, bets)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request" and "bets" in response.json()["error"]["details"]


def test_the_same_key_and_body_place_once(api, player, coup):
    first = place(api, {"banker": "10"}, key="bet-1")
    again = place(api, {"banker": "10.00"}, key="bet-1")
    assert again.status_code == 201 and again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert Bet.objects.count() == 1 and wallet_balance(user=player.user) == D("990.00")
    conflict = place(api, {"banker": "20"}, key="bet-1")
    assert conflict.status_code == 409 and conflict.json()["error"]["code"] == "idempotency_conflict"
    assert Bet.objects.count() == 1


def test_a_replay_answers_the_first_result_even_after_settlement(api, player, coup):
    first = place(api, {"player": "10"}, key="bet-1")
    settle(coup)
    again = place(api, {"player": "10"}, key="bet-1")
    assert again.status_code == 201 and again.json() == first.json()


def test_the_players_bets_are_listed_newest_round_first_and_filtered(partner, api, player, coup, table):
    place(api, {"player": "10", "player_pair": "1"})
    settle(coup)
    later = CoupFactory(table=table, betting_closes_at=timezone.now() + timedelta(minutes=5))
    place(api, {"banker": "20"})
    other_table_coup = CoupFactory(table=TableFactory(code="pb2"), betting_closes_at=later.betting_closes_at)
    place(api, {"banker": "5"}, table="pb2")
    bets = api.get("/api/v1/players/p-1/bets/").json()
    assert bets["count"] == 4
    assert [bet["round_id"] for bet in bets["results"]] == [
        other_table_coup.round_id,
        later.round_id,
        coup.round_id,
        coup.round_id,
    ]
    settled = bets["results"][2]
    assert settled == {
        "id": settled["id"],
        "batch_id": settled["batch_id"],
        "round_id": coup.round_id,
        "table": "pb1",
        "player_id": "p-1",
        "bet_type": "player",
        "stake": "10.00",
        "state": "settled",
        "outcome": "win",
        "returned": "20.00",
        "placed_at": settled["placed_at"],
        "settled_at": settled["settled_at"],
    }
    assert bets["results"][1]["outcome"] is None and bets["results"][1]["settled_at"] is None
    assert api.get("/api/v1/players/p-1/bets/?table=pb2").json()["count"] == 1
    assert api.get(f"/api/v1/players/p-1/bets/?round_id={coup.round_id}").json()["count"] == 2
    page = api.get("/api/v1/players/p-1/bets/?page_size=3&page=2").json()
    assert page["count"] == 4 and len(page["results"]) == 1 and page["previous"] is not None
    assert api.get("/api/v1/players/p-1/bets/?page=9").status_code == 404


def test_a_round_shows_its_cards_result_and_only_the_partners_own_bets(partner, other_partner, api, other_api, coup):
    player_make(partner, "p-1")
    player_make(other_partner, "g-1")
    place(api, {"player": "10"})
    place(other_api, {"banker": "30"}, player_id="g-1")
    settle(coup)
    body = api.get(f"/api/v1/rounds/{coup.round_id}/").json()
    assert body["round_id"] == coup.round_id and body["table"] == "pb1" and body["state"] == "settled"
    assert (body["winner"], body["player_total"], body["banker_total"], body["natural"]) == ("player", 9, 5, True)
    assert [card["card"] for card in body["cards"]] == ["9S", "2H", "KD", "3C"]
    assert [(bet["player_id"], bet["outcome"], bet["returned"]) for bet in body["bets"]] == [("p-1", "win", "20.00")]
    others = other_api.get(f"/api/v1/rounds/{coup.round_id}/").json()["bets"]
    assert [(bet["player_id"], bet["outcome"], bet["returned"]) for bet in others] == [("g-1", "lose", "0.00")]
    assert body["settled_at"] is not None and body["voided_at"] is None


def test_an_unknown_round_is_404(api, db):
    response = api.get("/api/v1/rounds/PB1-NOPE/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "round_not_found"


def test_the_history_pages_through_the_rounds_with_the_balance_around_them(api, player, coup, table):
    place(api, {"player": "10"})
    settle(coup)
    second = CoupFactory(table=table, betting_closes_at=timezone.now() + timedelta(minutes=5))
    place(api, {"banker": "100"})
    settle(second)
    CoupFactory(table=TableFactory(code="pb2"))  # not bet on: not in the history
    history = api.get("/api/v1/players/p-1/rounds/?page_size=1").json()
    assert history["count"] == 2 and history["next"] is not None
    latest = history["results"][0]
    assert latest["round_id"] == second.round_id and latest["winner"] == "player"
    assert (latest["staked"], latest["returned"]) == ("100.00", "0.00")
    assert (latest["balance_before"], latest["balance_after"]) == ("1010.00", "910.00")
    assert latest["bets"] == [
        {
            "id": latest["bets"][0]["id"],
            "bet_type": "banker",
            "stake": "100.00",
            "state": "settled",
            "outcome": "lose",
            "returned": "0.00",
        }
    ]
    first = api.get(history["next"]).json()["results"][0]
    assert (first["round_id"], first["balance_before"], first["balance_after"]) == (coup.round_id, "1000.00", "1010.00")


def test_the_history_is_filtered_by_date_and_table(api, player, coup, table):
    place(api, {"player": "10"})
    settle(coup)
    Coup.objects.filter(pk=coup.pk).update(opened_at=timezone.now() - timedelta(days=3))
    recent = CoupFactory(table=TableFactory(code="pb2"), betting_closes_at=timezone.now() + timedelta(minutes=5))
    place(api, {"banker": "10"}, table="pb2")
    today = timezone.now().date()
    rounds = lambda query: [r["round_id"] for r in api.get(f"/api/v1/players/p-1/rounds/?{query}").json()["results"]]  # noqa: E731
    assert rounds("") == [recent.round_id, coup.round_id]
    assert rounds(f"date_from={today}") == [recent.round_id]
    assert rounds(f"date_to={today - timedelta(days=1)}") == [coup.round_id]
    assert rounds(f"date_from={today - timedelta(days=3)}&date_to={today - timedelta(days=3)}") == [coup.round_id]
    assert rounds("table=pb1") == [coup.round_id]
    bad = api.get(f"/api/v1/players/p-1/rounds/?date_from={today}&date_to={today - timedelta(days=1)}")
    assert bad.status_code == 400 and "date_to" in bad.json()["error"]["details"]
    assert api.get("/api/v1/players/p-1/rounds/?date_from=yesterday").status_code == 400


def test_a_void_coup_refunds_and_shows_as_void(api, player, coup):

    place(api, {"banker": "50"})
    lifecycle.coup_void(coup=coup, actor=None, reason="dealing error")
    body = api.get(f"/api/v1/rounds/{coup.round_id}/").json()
    assert body["state"] == "void" and body["void_reason"] == "dealing error"
    assert [(bet["state"], bet["outcome"], bet["returned"]) for bet in body["bets"]] == [
        ("refunded", "refund", "50.00")
    ]
    assert api.get("/api/v1/players/p-1/").json()["balance"] == "1000.00"
