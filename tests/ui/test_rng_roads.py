"""A table dealt on demand (issue 30): the player's own roads and statistics for their private shoe, in the page on
load and in each deal's answer; a new shoe starts empty roads; one player's roads never reach another player."""

from __future__ import annotations

import html
import json
import re
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from roadmaps.selectors import private_round_roadmap, table_snapshot
from tables.models import Table
from tests.factories import TableFactory, UserFactory
from tests.ui.conftest import fund
from tests.ui.test_bet_endpoints import post

pytestmark = pytest.mark.django_db
LETTER = {"banker": "B", "player": "P", "tie": "T"}


def page_roads(client: Client, code: str) -> dict:
    page = client.get(f"/tables/{code}/").content.decode()
    found = re.search(r'<script id="rng-roads" type="application/json">(.*?)</script>', page, re.S)
    assert found, "the page carries its roads"
    return json.loads(html.unescape(found.group(1)))


def deals(client: Client, code: str, bets: dict):
    """Deal again and again from the player's shoe, as their page would (the commitment it shows), answers."""
    page = client.get(f"/tables/{code}/").content.decode()
    commitment = re.search(r'data-shoe-commitment="([0-9a-f]{64})"', page).group(1)
    while True:
        body = {"bets": bets, "commitment": commitment, "request_id": uuid.uuid4().hex}
        response = post(client, f"/tables/{code}/deal/", body)
        assert response.status_code == 200, response.content
        answer = response.json()
        commitment = answer["shoe"]["commitment"]
        yield answer


def dealt(client: Client, code: str, bets: dict, times: int = 1) -> list[dict]:
    return [answer for _, answer in zip(range(times), deals(client, code, bets), strict=False)]


def signed_in(client: Client, username: str) -> Client:
    user = UserFactory(username=username)
    fund(user, "10000.00")
    client.force_login(user)
    return client


def expected_stats(answers: list[dict]) -> dict:
    """The statistics counted from the deals' own answers, not from the roads' code."""
    count = lambda key: sum(1 for answer in answers if answer[key])  # noqa: E731
    winners = [answer["winner"] for answer in answers]
    return {
        "coups": len(answers),
        "banker": winners.count("banker"),
        "player": winners.count("player"),
        "tie": winners.count("tie"),
        "banker_pair": count("banker_pair"),
        "player_pair": count("player_pair"),
        "natural": count("natural"),
    }


def beads(roads: dict) -> list[str]:
    return [bead["result"] for bead in roads["bead_plate"]]


def test_the_roads_of_the_players_shoe_on_load_and_after_each_deal(client):
    TableFactory(code="rng5", dealing_mode=Table.DealingMode.RNG, decks=4)
    player = signed_in(client, "alice")
    empty = page_roads(player, "rng5")
    assert empty["stats"]["coups"] == 0 and empty["bead_plate"] == [] and empty["big_road"]["cells"] == []
    answers = []
    for answer in dealt(player, "rng5", {"banker": "5.00"}, times=5):
        answers.append(answer)
        roads = answers[-1]["roads"]
        assert beads(roads) == [LETTER[answer["winner"]] for answer in answers]
        assert {key: roads["stats"][key] for key in expected_stats(answers)} == expected_stats(answers)
    assert page_roads(player, "rng5") == answers[-1]["roads"]  # a reload draws the same roads
    for road in ("big_road", "big_eye_road", "small_road", "cockroach_road"):
        assert road in answers[-1]["roads"]


def test_a_new_shoe_starts_empty_roads(client):
    TableFactory(code="rng2", dealing_mode=Table.DealingMode.RNG, decks=1, cut_card_from_bottom=16)
    player = signed_in(client, "alice")
    answers = []
    for answer in deals(player, "rng2", {"player": "1.00"}):
        answers.append(answer)
        if answer["shoe_ended"] is not None:
            break
    # The deal the cut card ended shows its shoe's last coup on that shoe's roads...
    assert answers[-1]["roads"]["stats"]["coups"] == len(answers) == answers[-1]["number"]
    assert beads(answers[-1]["roads"]) == [LETTER[answer["winner"]] for answer in answers]
    # ...and the next shoe's roads start empty, on the page and in its first deal's answer.
    assert page_roads(player, "rng2")["stats"]["coups"] == 0
    [first] = dealt(player, "rng2", {"player": "1.00"})
    assert first["shoe_number"] != answers[-1]["shoe_number"] and first["roads"]["stats"]["coups"] == 1
    assert beads(first["roads"]) == [LETTER[first["winner"]]]


def test_one_players_roads_never_reach_another(client):
    table = TableFactory(code="rng5", dealing_mode=Table.DealingMode.RNG, decks=4)
    alice = signed_in(client, "alice")
    alices = dealt(alice, "rng5", {"banker": "5.00"}, times=4)
    bob = signed_in(Client(), "bob")
    assert page_roads(bob, "rng5")["stats"]["coups"] == 0  # Alice's four coups are not on Bob's page
    [bobs] = dealt(bob, "rng5", {"player": "5.00"})
    assert bobs["roads"]["stats"]["coups"] == 1 and beads(bobs["roads"]) == [LETTER[bobs["winner"]]]
    assert page_roads(alice, "rng5") == alices[-1]["roads"]  # and Bob's coup is not on Alice's
    # Nor does the table's public snapshot, which every socket at the table gets.
    assert table_snapshot(table=table)["roads"]["stats"]["coups"] == 0


def test_a_rounds_roads_are_only_its_players():
    """A deal's answer builds its roads from its round id and its player together: another player's round id
    finds no shoe of theirs."""
    TableFactory(code="rng5", dealing_mode=Table.DealingMode.RNG, decks=4)
    alices = dealt(signed_in(Client(), "alice"), "rng5", {"banker": "5.00"}, times=3)
    alice, bob = get_user_model().objects.get(username="alice"), UserFactory()
    assert private_round_roadmap(round_id=alices[-1]["round_id"], player_id=alice.pk) == alices[-1]["roads"]
    assert private_round_roadmap(round_id=alices[-1]["round_id"], player_id=bob.pk)["stats"]["coups"] == 0
