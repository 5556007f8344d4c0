"""The roads, worked by hand from the seed's rules (no database).

Notation: a Big Road entry is (logical column, row), both 0-based. A derived road
of cycle k marks an entry at row 0 red when columns c-1 and c-1-k are equally
deep; an entry at row r >= 1 blue when column c-k is exactly r deep (seed: "move
k cells left, then up: no change is red"), red otherwise.
"""

import copy
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.roads import BLUE, DERIVED_CYCLES, RED, ROWS, Coup, Roadmap, SequenceError, build_roadmap, parse_sequence

ROOT = Path(__file__).resolve().parents[2]
R, B = RED, BLUE


def roads(sequence: str) -> dict:
    return build_roadmap(parse_sequence(sequence))


def drawn(cells: list[dict]) -> list[tuple[int, int]]:
    return [(cell["col"], cell["row"]) for cell in cells]


def column(col: int, rows: range) -> list[tuple[int, int]]:
    return [(col, row) for row in rows]


def tail(cols: range, row: int) -> list[tuple[int, int]]:
    return [(col, row) for col in cols]


def derived_marks(roadmap: dict) -> list[list[str]]:
    return [roadmap[name]["marks"] for name in DERIVED_CYCLES]


# --- parsing -----------------------------------------------------------------------------------------------------


def test_parse_sequence_puts_pairs_on_the_coup_they_follow() -> None:
    assert parse_sequence("BbPTpBpb") == [
        Coup("B", banker_pair=True),
        Coup("P"),
        Coup("T", player_pair=True),
        Coup("B", banker_pair=True, player_pair=True),
    ]
    assert parse_sequence("") == []


@pytest.mark.parametrize(
    ("sequence", "char", "position"),
    [("BPxB", "x", 3), ("bB", "b", 1), ("Bbb", "b", 3), ("BP P", " ", 3), ("Bpq", "q", 3)],
)
def test_parse_sequence_names_the_bad_character_and_its_position(sequence: str, char: str, position: int) -> None:
    with pytest.raises(SequenceError, match=f"{char!r} at position {position} ") as raised:
        parse_sequence(sequence)
    assert (raised.value.char, raised.value.position) == (char, position)


def test_a_coup_refuses_an_unknown_result() -> None:
    with pytest.raises(ValueError, match="'X'"):
        Coup("X")


# --- bead plate --------------------------------------------------------------------------------------------------


def test_bead_plate_goes_down_six_rows_then_right_and_keeps_ties_and_pairs() -> None:
    bead = roads("BbPTpBPBP")["bead_plate"]
    assert drawn(bead) == [*column(0, range(6)), (1, 0)]
    assert "".join(cell["result"] for cell in bead) == "BPTBPBP"
    assert bead[0] == {"col": 0, "row": 0, "result": "B", "banker_pair": True, "player_pair": False}
    assert bead[2] == {"col": 0, "row": 2, "result": "T", "banker_pair": False, "player_pair": True}


# --- big road ----------------------------------------------------------------------------------------------------


def test_big_road_opens_a_column_when_the_result_flips() -> None:
    big = roads("BBPBbB")["big_road"]
    assert [[entry["result"] for entry in col] for col in big["columns"]] == [["B", "B"], ["P"], ["B", "B"]]
    assert drawn(big["cells"]) == [(0, 0), (0, 1), (1, 0), (2, 0), (2, 1)]
    assert big["cells"][3] == {"col": 2, "row": 0, "result": "B", "ties": 0, "banker_pair": True, "player_pair": False}


def test_a_streak_of_8_turns_right_along_the_last_row() -> None:
    # 6 cells down column 0, then (1,5) and (2,5); the next column still starts at column 1, above the tail.
    big = roads("BBBBBBBBP")["big_road"]
    assert drawn(big["cells"]) == [*column(0, range(6)), (1, 5), (2, 5), (1, 0)]
    assert len(big["columns"]) == 2 and len(big["columns"][0]) == 8  # a dragon tail is still one column


def test_a_second_dragon_above_an_earlier_tail_turns_earlier() -> None:
    # B x8: (0,0)-(0,5), tail (1,5) (2,5).
    # P x7: (1,0)-(1,4), (1,5) is taken so it turns on row 4: (2,4) (3,4).
    # B x6: (2,0)-(2,3), (2,4) is taken so it turns on row 3: (3,3) (4,3).
    cells = drawn(roads("B" * 8 + "P" * 7 + "B" * 6)["big_road"]["cells"])
    assert cells == [
        *column(0, range(6)),
        *tail(range(1, 3), 5),
        *column(1, range(5)),
        *tail(range(2, 4), 4),
        *column(2, range(4)),
        *tail(range(3, 5), 3),
    ]


def test_nested_dragons_down_to_row_0_push_the_next_column_right() -> None:
    # Streaks of 10, 9, 8, 7, 6 each turn one row higher than the one before; the streak of 5 starting at (5,0)
    # finds (5,1) taken and runs right along row 0 to (9,0); the next column cannot start on (6,0), taken,
    # so it starts on the first free top cell, (10,0).
    cells = drawn(roads("B" * 10 + "P" * 9 + "B" * 8 + "P" * 7 + "B" * 6 + "P" * 5 + "B")["big_road"]["cells"])
    assert cells[-6:] == [*tail(range(5, 10), 0), (10, 0)]
    assert cells[34:40] == [(4, 0), (4, 1), *tail(range(5, 9), 1)]
    assert len(set(cells)) == len(cells)


def test_a_column_clear_of_the_tail_uses_its_full_depth() -> None:
    # B x8 leaves a tail on (1,5) (2,5); P, B, P, B take (1,0) .. (4,0); P x6 in column 5 goes straight down.
    cells = drawn(roads("B" * 8 + "PBPB" + "P" * 6)["big_road"]["cells"])
    assert cells[8:] == [*tail(range(1, 5), 0), *column(5, range(6))]


@pytest.mark.parametrize(("sequence", "leading", "first_ties"), [("TB", 1, 1), ("TTTBB", 3, 3), ("TTBT", 2, 3)])
def test_leading_ties_land_on_the_first_cell(sequence: str, leading: int, first_ties: int) -> None:
    big = roads(sequence)["big_road"]
    assert big["leading_ties"] == leading
    assert big["cells"][0]["ties"] == big["columns"][0][0]["ties"] == first_ties
    assert [cell["ties"] for cell in big["cells"][1:]] == [0] * (len(big["cells"]) - 1)


def test_tie_banker_and_banker_tie_look_the_same_on_the_big_road() -> None:
    assert roads("TB")["big_road"]["cells"] == roads("BT")["big_road"]["cells"]


def test_a_shoe_of_only_ties_has_no_cells_but_counts_them() -> None:
    assert roads("TTT")["big_road"] == {"leading_ties": 3, "columns": [], "cells": []}


def test_ties_after_a_dragon_count_on_the_last_tail_cell() -> None:
    cells = roads("BBBBBBBBTTP")["big_road"]["cells"]
    assert cells[7] == {"col": 2, "row": 5, "result": "B", "ties": 2, "banker_pair": False, "player_pair": False}
    assert cells[8]["ties"] == 0


def test_big_road_pair_dots_are_those_of_the_cells_own_coup() -> None:
    # A tie's pairs have no Big Road icon of their own: they stay on the Bead Plate.
    roadmap = roads("BTbPp")
    assert [(c["banker_pair"], c["player_pair"]) for c in roadmap["big_road"]["cells"]] == [
        (False, False),
        (False, True),
    ]
    assert roadmap["bead_plate"][1]["banker_pair"]


# --- derived roads -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sequence", "big_eye", "small", "cockroach"),
    [
        # Big Eye Road: starts with the entry after (1,0), the first entry of the second column.
        ("BBBB", [], [], []),  # column 0 has no column to its left
        ("BP", [], [], []),  # (1,0): column -1 does not exist
        ("BPB", [R], [], []),  # (2,0): columns 1 and 0 both 1 deep
        ("BPP", [B], [], []),  # (1,1): left (0,1) blank, above it (0,0) B: a change
        ("BBBPP", [R], [], []),  # (1,1): left (0,1) B, above (0,0) B: no change
        # Small Road: starts with the entry after (2,0), the first entry of the third column.
        ("BPPB", [B, B], [], []),  # (2,0): columns 1 and -1: nothing yet
        ("BPBP", [R, R], [R], []),  # (3,0): columns 2 and 0 both 1 deep
        ("BPBB", [R, B], [B], []),  # (2,1): column 0 is 1 deep: (0,1) blank under (0,0) B
        # Cockroach Road: starts with the entry after (3,0), the first entry of the fourth column.
        ("BPBPB", [R, R, R], [R, R], [R]),  # (4,0): columns 3 and 0 both 1 deep
        ("BPBPP", [R, R, B], [R, B], [B]),  # (3,1): column 0 is 1 deep
        ("BBPBPP", [B, R, B], [B, B], [R]),  # (3,1): column 0 is 2 deep: (0,1) B under (0,0) B
    ],
)
def test_each_derived_road_starts_where_the_seed_says(
    sequence: str, big_eye: list[str], small: list[str], cockroach: list[str]
) -> None:
    assert derived_marks(roads(sequence)) == [big_eye, small, cockroach]


# B B | P P P | B | P P | B B B: columns 2, 3, 1, 2, 3 deep; entries (0,0) (0,1) (1,0) (1,1) (1,2) (2,0) (3,0) (3,1)
# (4,0) (4,1) (4,2).
# Big Eye (k=1): (1,1) col 0 is 2 deep, not 1: R; (1,2) col 0 is 2: B; (2,0) 3 vs 2: B; (3,0) 1 vs 3: B;
#   (3,1) col 2 is 1: B; (4,0) 2 vs 1: B; (4,1) col 3 is 2: R; (4,2) col 3 is 2: B.
# Small (k=2): (3,0) cols 2, 0: 1 vs 2: B; (3,1) col 1 is 3: R; (4,0) cols 3, 1: 2 vs 3: B; (4,1) col 2 is 1: B;
#   (4,2) col 2 is 1: R.
# Cockroach (k=3): (3,1) col 0 is 2: R; (4,0) cols 3, 0: 2 vs 2: R; (4,1) col 1 is 3: R; (4,2) col 1 is 3: R.
# Ask, Banker -> (4,3): col 3 is 2: R; col 2 is 1: R; col 1 is 3: B.
#      Player -> (5,0): col 4 (3) vs col 3 (2): B; vs col 2 (1): B; vs col 1 (3): R.
MIXED = "BBPPPBPPBBB"
MIXED_MARKS = [[R, B, B, B, B, B, R, B], [B, R, B, B, R], [R, R, R, R]]
MIXED_ASK = {
    "banker": {"big_eye_road": R, "small_road": R, "cockroach_road": B},
    "player": {"big_eye_road": B, "small_road": B, "cockroach_road": R},
}


def test_a_mixed_shoe() -> None:
    roadmap = roads(MIXED)
    assert derived_marks(roadmap) == MIXED_MARKS
    assert drawn(roadmap["big_eye_road"]["cells"]) == [(0, 0), *column(1, range(5)), (2, 0), (3, 0)]
    assert roadmap["big_eye_road"]["cells"][0] == {"col": 0, "row": 0, "color": R}
    assert drawn(roadmap["cockroach_road"]["cells"]) == column(0, range(4))
    assert roadmap["ask"] == MIXED_ASK


def test_ties_and_pairs_change_no_derived_road() -> None:
    roadmap = roads("TBBTPPPpTBPPbBBTTB")  # MIXED with ties and pairs
    assert derived_marks(roadmap) == MIXED_MARKS
    assert roadmap["ask"] == MIXED_ASK


def test_a_ping_pong_shoe_makes_a_red_dragon_on_the_big_eye_road() -> None:
    # Every column is 1 deep: every mark is red; the Big Eye Road's 7 reds turn right on row 5.
    roadmap = roads("BPBPBPBPB")
    assert derived_marks(roadmap) == [[R] * 7, [R] * 6, [R] * 5]
    assert drawn(roadmap["big_eye_road"]["cells"]) == [*column(0, range(6)), (1, 5)]


def test_a_ping_pong_then_a_streak() -> None:
    # B | P | B | P | B B B B: entries (0,0) (1,0) (2,0) (3,0) (4,0) (4,1) (4,2) (4,3).
    # Big Eye: (2,0) (3,0) (4,0) R R R; (4,1) col 3 is 1 deep: B; (4,2) (4,3): R R.
    # Small: (3,0) (4,0) R R; (4,1) col 2 is 1: B; R R.   Cockroach: (4,0) R; (4,1) col 1 is 1: B; R R.
    # Ask, Banker -> (4,4): columns 3, 2, 1 are 1 deep, not 4: R R R.  Player -> (5,0): 4 deep vs 1: B B B.
    roadmap = roads("BPBPBBBB")
    assert derived_marks(roadmap) == [[R, R, R, B, R, R], [R, R, B, R, R], [R, B, R, R]]
    assert drawn(roadmap["big_eye_road"]["cells"]) == [*column(0, range(3)), (1, 0), (2, 0), (2, 1)]
    assert roadmap["ask"] == {
        "banker": dict.fromkeys(DERIVED_CYCLES, R),
        "player": dict.fromkeys(DERIVED_CYCLES, B),
    }


def test_ask_is_null_before_a_road_starts() -> None:
    assert roads("")["ask"] == {"banker": dict.fromkeys(DERIVED_CYCLES), "player": dict.fromkeys(DERIVED_CYCLES)}
    assert roads("BP")["ask"] == {
        "banker": {"big_eye_road": R, "small_road": None, "cockroach_road": None},  # (2,0): 1 vs 1 deep
        "player": {"big_eye_road": B, "small_road": None, "cockroach_road": None},  # (1,1): column 0 is 1 deep
    }


def test_stats_count_results_pairs_and_given_naturals() -> None:
    roadmap = Roadmap()
    for coup in [*parse_sequence("BbPTpBpb"), Coup("P", natural=True)]:
        roadmap.add(coup)
    assert roadmap.to_dict()["stats"] == {
        "coups": 5,
        "banker": 2,
        "player": 2,
        "tie": 1,
        "banker_pair": 2,
        "player_pair": 2,
        "natural": 1,
    }


# --- properties --------------------------------------------------------------------------------------------------

random_coups = st.lists(st.builds(Coup, st.sampled_from("BPT"), st.booleans(), st.booleans(), st.booleans()))
streaky_coups = st.lists(st.tuples(st.sampled_from("BPT"), st.integers(1, 14)), max_size=14).map(
    lambda runs: [Coup(result) for result, length in runs for _ in range(length)]
)
shoes = st.one_of(random_coups, streaky_coups)


def feed(coups: list[Coup]) -> Roadmap:
    roadmap = Roadmap()
    for coup in coups:
        roadmap.add(coup)
    return roadmap


def entries_before_start(columns: list[list], cycle: int) -> int:
    """Entries up to and including the first one of column ``cycle``: the seed's "wait until the entry after"."""
    if len(columns) <= cycle:
        return sum(map(len, columns))
    return sum(map(len, columns[:cycle])) + 1


@given(shoes)
def test_each_derived_road_marks_every_entry_after_its_start(coups: list[Coup]) -> None:
    roadmap = feed(coups).to_dict()
    columns = roadmap["big_road"]["columns"]
    for name, cycle in DERIVED_CYCLES.items():
        expected = len(roadmap["big_road"]["cells"]) - entries_before_start(columns, cycle)
        assert len(roadmap[name]["marks"]) == len(roadmap[name]["cells"]) == expected


def assert_drawn_as_streaks(cells: list[tuple[int, int]], values: list[str]) -> None:
    """Unique cells on 6 rows; a streak starts on row 0 right of the previous start, then goes down or right."""
    assert len(set(cells)) == len(cells)
    assert all(0 <= row < ROWS and col >= 0 for col, row in cells)
    start = -1
    for index, (col, row) in enumerate(cells):
        if index == 0 or values[index] != values[index - 1]:
            assert row == 0 and col > start
            start = col
        else:
            above_col, above_row = cells[index - 1]
            assert (col, row) in {(above_col, above_row + 1), (above_col + 1, above_row)}


@given(shoes)
def test_drawn_cells_are_unique_on_six_rows_and_streaks_go_down_then_right(coups: list[Coup]) -> None:
    roadmap = feed(coups).to_dict()
    big_road = roadmap["big_road"]["cells"]
    assert_drawn_as_streaks(drawn(big_road), [cell["result"] for cell in big_road])
    for name in DERIVED_CYCLES:
        assert_drawn_as_streaks(drawn(roadmap[name]["cells"]), roadmap[name]["marks"])


@given(shoes)
def test_the_big_road_columns_hold_the_cells_in_order(coups: list[Coup]) -> None:
    big = feed(coups).to_dict()["big_road"]
    assert [entry for col in big["columns"] for entry in col] == [
        {key: value for key, value in cell.items() if key not in {"col", "row"}} for cell in big["cells"]
    ]
    assert sum(cell["ties"] for cell in big["cells"]) + (0 if big["cells"] else big["leading_ties"]) == sum(
        coup.result == "T" for coup in coups
    )


def appended_marks(roadmap: Roadmap, before: dict[str, int]) -> dict[str, str | None]:
    return {name: road.marks[-1] if len(road.marks) > before[name] else None for name, road in roadmap.derived.items()}


@given(shoes)
def test_ask_is_the_mark_made_when_that_result_comes_next(coups: list[Coup]) -> None:
    roadmap = Roadmap()
    for coup in coups:
        ask = roadmap.ask()
        before = {name: len(road.marks) for name, road in roadmap.derived.items()}
        roadmap.add(coup)
        if coup.result != "T":
            assert appended_marks(roadmap, before) == ask["banker" if coup.result == "B" else "player"]
    ask = roadmap.ask()
    before = {name: len(road.marks) for name, road in roadmap.derived.items()}
    for side, result in (("banker", "B"), ("player", "P")):
        future = copy.deepcopy(roadmap)
        future.add(Coup(result))
        assert appended_marks(future, before) == ask[side]


@given(shoes)
def test_ties_never_make_a_mark(coups: list[Coup]) -> None:
    with_ties, without = feed(coups).to_dict(), feed([coup for coup in coups if coup.result != "T"]).to_dict()
    for name in (*DERIVED_CYCLES, "ask"):
        assert with_ties[name] == without[name]


@given(shoes)
def test_stats_add_up(coups: list[Coup]) -> None:
    roadmap = feed(coups).to_dict()
    stats = roadmap["stats"]
    assert stats["banker"] + stats["player"] + stats["tie"] == stats["coups"] == len(roadmap["bead_plate"])
    assert stats["banker_pair"] == sum(cell["banker_pair"] for cell in roadmap["bead_plate"])
    assert stats["player_pair"] == sum(cell["player_pair"] for cell in roadmap["bead_plate"])
    assert stats["natural"] == sum(coup.natural for coup in coups)


def test_roads_import_no_django() -> None:
    code = "import sys, baccarat.roads; print('django' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
