"""``manage.py roadmap --sequence SEQ [--json]``."""

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

ROOT = Path(__file__).resolve().parents[2]


def run_roadmap(*args: str) -> str:
    out = StringIO()
    call_command("roadmap", *args, stdout=out)
    return out.getvalue()


def test_json_has_exactly_the_documented_keys() -> None:
    roadmap = json.loads(run_roadmap("--sequence", "TBbPTpBBPPBPB", "--json"))
    assert list(roadmap) == [
        "bead_plate",
        "big_road",
        "big_eye_road",
        "small_road",
        "cockroach_road",
        "ask",
        "stats",
    ]
    assert set(roadmap["bead_plate"][0]) == {"col", "row", "result", "banker_pair", "player_pair"}
    assert set(roadmap["big_road"]) == {"leading_ties", "columns", "cells"}
    assert set(roadmap["big_road"]["columns"][0][0]) == {"result", "ties", "banker_pair", "player_pair"}
    assert set(roadmap["big_road"]["cells"][0]) == {"col", "row", "result", "ties", "banker_pair", "player_pair"}
    derived = ["big_eye_road", "small_road", "cockroach_road"]
    for name in derived:
        assert set(roadmap[name]) == {"marks", "cells"}
        assert set(roadmap[name]["cells"][0]) == {"col", "row", "color"}
    assert {side: list(marks) for side, marks in roadmap["ask"].items()} == {"banker": derived, "player": derived}
    assert roadmap["stats"] == {
        "coups": 11,
        "banker": 5,
        "player": 4,
        "tie": 2,
        "banker_pair": 1,
        "player_pair": 1,
        "natural": 0,
    }


def test_json_of_a_short_sequence() -> None:
    roadmap = json.loads(run_roadmap("--sequence", "TBbP", "--json"))
    assert roadmap["bead_plate"][1] == {"col": 0, "row": 1, "result": "B", "banker_pair": True, "player_pair": False}
    assert roadmap["big_road"]["leading_ties"] == 1
    assert roadmap["big_road"]["cells"] == [
        {"col": 0, "row": 0, "result": "B", "ties": 1, "banker_pair": True, "player_pair": False},
        {"col": 1, "row": 0, "result": "P", "ties": 0, "banker_pair": False, "player_pair": False},
    ]
    assert roadmap["ask"]["player"] == {"big_eye_road": "blue", "small_road": None, "cockroach_road": None}


def test_text_draws_the_roads_as_grids() -> None:
    text = run_roadmap("--sequence", "BBPTBBBBBBBB")
    for title in ("Bead Plate", "Big Road", "Big Eye Road", "Small Road", "Cockroach Road", "Banker?", "Player?"):
        assert title in text
    assert "|B |P1|B |" in text  # the top row of the Big Road: the tie counts on the P
    assert "|  |  |B |B |" in text  # its last row: the B streak of 7 turns right
    assert "coups=12 banker=10 player=1 tie=1" in text


def test_a_bad_character_is_a_command_error_naming_it() -> None:
    with pytest.raises(CommandError, match="'x' at position 3"):
        run_roadmap("--sequence", "BPxB", "--json")


def test_a_bad_character_exits_non_zero() -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "roadmap", "--sequence", "BP?B", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "'?' at position 3" in result.stderr
    assert result.stdout == ""
