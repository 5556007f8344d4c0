"""Tables: rules, limits, paytables, state, the current coup and its deadline, roads, exact RTP; shoes."""

from fractions import Fraction

import pytest

from baccarat.odds import ShoeComposition, analyze
from baccarat.paytables import build_paytables
from casino import lifecycle
from casino.lifecycle.rng import RngDealAsked, rng_coup_deal, rng_shoe_ready
from partners.selectors.tables import table_rules_bet_odds
from tables.models import Shoe
from tables.services import table_create, table_open
from tests.casino.test_loop import step_until
from tests.factories import CoupFactory, ShoeFactory, TableFactory, coup_deal_and_resolve
from tests.wagering.conftest import funded


def test_the_list_shows_every_table_with_its_rules_limits_and_current_coup(api, coup):
    TableFactory(code="closed1", is_open=False)
    response = api.get("/api/v1/tables/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2 and body["next"] is None
    closed, pb1 = body["results"]
    assert (closed["code"], closed["state"], closed["current_coup"], closed["shoe"]) == (
        "closed1",
        "closed",
        None,
        None,
    )
    assert pb1["state"] == "betting" and pb1["is_open"] is True
    assert pb1["current_coup"]["round_id"] == coup.round_id
    assert pb1["current_coup"]["betting_closes_at"] == coup.betting_closes_at.isoformat().replace("+00:00", "Z")
    assert pb1["rules"]["decks"] == 8 and pb1["rules"]["max_differential"] == "5000.00"
    assert [limit["bet_type"] for limit in pb1["limits"]] == ["player", "banker", "tie", "player_pair", "banker_pair"]
    assert pb1["limits"][2] == {"bet_type": "tie", "minimum": "1.00", "maximum": "100.00", "table_maximum": "500.00"}
    paytables = {paytable["bet_type"]: paytable for paytable in pb1["paytables"]}
    assert paytables["banker"]["pays"] == {"win": "0.95", "push": "0.00"}
    assert paytables["tie"]["odds"] == "8:1" and paytables["player_pair"]["pays"] == {"win": "11.00"}
    assert "roads" not in pb1 and "odds" not in pb1


def test_the_detail_adds_the_roads_and_the_exact_rtp_of_every_bet_on_offer(api, coup):
    response = api.get("/api/v1/tables/pb1/")
    assert response.status_code == 200
    table = response.json()
    assert set(table["roads"]) >= {"bead_plate", "big_road", "ask", "stats"}
    exact = analyze(ShoeComposition.full(8), paytables=coup.table.game_rules().paytables())
    odds = {row["bet_type"]: row for row in table["odds"]}
    assert list(odds) == ["player", "banker", "tie", "player_pair", "banker_pair"]
    for bet_type, row in odds.items():
        assert Fraction(row["rtp_exact"]) == exact.bets[bet_type].rtp
    assert odds["banker"]["house_edge"] == "0.01057906" and odds["banker"]["rtp"] == "0.98942094"
    assert odds["tie"]["house_edge"] == "0.14359629"


def test_the_rtp_follows_the_tables_rules(api, db):
    TableFactory(code="nc9", decks=6, commission=False, tie_pays=9, side_bets=["big", "small"], cut_card_from_bottom=40)
    odds = {row["bet_type"]: row for row in api.get("/api/v1/tables/nc9/").json()["odds"]}
    assert list(odds) == ["player", "banker", "tie", "small", "big"]
    paytables = build_paytables(tie_pays=9)
    exact = analyze(ShoeComposition.full(6), paytables={"banker": paytables["banker_no_commission"]})
    assert Fraction(odds["banker"]["rtp_exact"]) == exact.bets["banker"].rtp


def test_the_odds_are_computed_once_per_rules(api, db):
    table_rules_bet_odds.cache_clear()
    TableFactory(code="a1")
    TableFactory(code="a2")
    for code in ("a1", "a2", "a1"):
        assert api.get(f"/api/v1/tables/{code}/").status_code == 200
    info = table_rules_bet_odds.cache_info()
    assert (info.misses, info.hits) == (1, 2)


def test_a_table_between_coups_is_open_and_shows_the_latest_coup(api, table):
    latest = coup_deal_and_resolve(CoupFactory(table=table), "9S 2H KD 3C")
    body = api.get("/api/v1/tables/pb1/").json()
    assert body["state"] == "open"
    assert body["current_coup"]["round_id"] == latest.round_id
    assert body["current_coup"]["winner"] == "player" and body["current_coup"]["player_total"] == 9
    assert [card["card"] for card in body["current_coup"]["cards"]] == ["9S", "2H", "KD", "3C"]


def test_an_unknown_table_is_404(api, db):
    response = api.get("/api/v1/tables/nope/")
    assert response.status_code == 404
    assert response.json()["error"] == {"code": "table_not_found", "message": "no table 'nope'", "details": {}}


def test_a_physical_shoe_has_no_commitment_nor_order(api, table):
    ShoeFactory(table=table, shuffle_method=Shoe.ShuffleMethod.TABLE)
    body = api.get("/api/v1/tables/pb1/shoes/1/").json()
    assert (body["commitment"], body["revealed"], body["card_order"], body["verification"]) == (None, False, None, None)


def test_an_unknown_shoe_is_404(api, table):
    response = api.get("/api/v1/tables/pb1/shoes/7/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "shoe_not_found"


@pytest.mark.django_db(transaction=True)
def test_a_shoe_shows_its_commitment_in_play_and_its_order_salt_and_verification_once_finished(api_live):
    api, table = api_live
    step_until(table, lambda: Shoe.objects.filter(table=table, state="in_play").exists())
    shoe = Shoe.objects.get(table=table, state="in_play")
    step_until(table, lambda: shoe.coups.filter(state="settled").count() >= 2)
    in_play = api.get(f"/api/v1/tables/{table.code}/shoes/{shoe.number}/").json()
    assert in_play["state"] == "in_play" and in_play["commitment"] == shoe.commitment
    assert (in_play["revealed"], in_play["card_order"], in_play["salt"], in_play["verification"]) == (
        False,
        None,
        None,
        None,
    )
    assert api.get(f"/api/v1/tables/{table.code}/").json()["shoe"] == {
        "number": shoe.number,
        "commitment": shoe.commitment,
    }
    lifecycle.shoe_replace(table=table, actor=None, reason="end the test shoe")
    shoe.refresh_from_db()
    finished = api.get(f"/api/v1/tables/{table.code}/shoes/{shoe.number}/").json()
    assert finished["state"] == "discarded" and finished["revealed"] is True
    revealed = shoe.reveal()
    assert finished["card_order"] == revealed.card_order and finished["salt"] == revealed.salt
    assert finished["burned_cards"] == revealed.burned_cards and len(revealed.salt) == 32
    assert finished["verification"]["ok"] is True and finished["verification"]["coups_checked"] >= 2
    assert finished["finished_at"] is not None and finished["started_at"] < finished["finished_at"]


@pytest.fixture
def api_live(api):
    """A client and an automatic table run by the table services."""
    table = table_create(code="live1", name="Live 1", betting_seconds=5)
    return api, table_open(table=table)


def test_a_table_dealt_on_demand_is_listed_without_its_players_private_shoes_and_coups(api, db):
    """Issue 30: the partners' list shows the kind of table; a player's private shoe and coups are theirs alone."""
    table = TableFactory(code="rng5", dealing_mode="rng", decks=4)
    player = funded("100.00")
    commitment = rng_shoe_ready(table=table, player=player).commitment
    rng_coup_deal(
        asked=RngDealAsked(user=player, table=table, bets={"player": "5"}, commitment=commitment, request_id="p1")
    )
    listed = {each["code"]: each for each in api.get("/api/v1/tables/").json()["results"]}
    assert listed["rng5"]["dealing_mode"] == "rng" and listed["rng5"]["state"] == "open"
    assert (listed["rng5"]["shoe"], listed["rng5"]["current_coup"]) == (None, None)
