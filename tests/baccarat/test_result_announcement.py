"""A result as it is announced, the winner's total first: the staff screens' words (the dealer console, its
messages) by the rule the player's page follows in its language (static/js/results.js); one table of cases for
both (issue 32: the console said "Banker wins, 5 to 9" where the player's page said "9 to 5")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baccarat.cards import parse_cards
from baccarat.coup import resolve, result_announcement

CASES = json.loads((Path(__file__).parents[1] / "js" / "fixtures" / "result-announcements.json").read_text("utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[case["said"] for case in CASES])
def test_the_winner_s_total_comes_first(case):
    coup = {key: value for key, value in case.items() if key != "said"}
    assert result_announcement(**coup) == case["said"]


def test_a_dealt_coup_is_announced_from_its_result():
    result = resolve(parse_cards("2S 9H 3D KC"))  # Player 5, Banker 9
    assert (
        result_announcement(winner=result.winner, player_total=result.player_total, banker_total=result.banker_total)
        == "Banker wins 9 to 5"
    )
