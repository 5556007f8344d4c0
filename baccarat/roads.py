"""The five baccarat roadmaps of a shoe, built one coup at a time.

Pure Python (no Django): the live push rebuilds nothing, it feeds each coup to a
``Roadmap`` and sends ``to_dict()``. Results are ``'B'``, ``'P'`` and ``'T'``.

The Big Road has *logical* columns (one per streak) and a *drawn* position per
entry on a 6-row grid, where a streak too long for its column turns right
(a dragon tail). The derived roads (Big Eye Road, Small Road, Cockroach Road)
read the logical columns only, and are drawn the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Sized
from dataclasses import dataclass, replace
from typing import Any

BANKER, PLAYER, TIE = "B", "P", "T"
RED, BLUE = "red", "blue"
ROWS = 6
DERIVED_CYCLES = {"big_eye_road": 1, "small_road": 2, "cockroach_road": 3}
SEQUENCE_HELP = "B, P or T, each optionally followed by b (banker pair) and/or p (player pair)"
_STAT_OF_RESULT = {BANKER: "banker", PLAYER: "player", TIE: "tie"}


@dataclass(frozen=True, slots=True)
class Coup:
    result: str
    banker_pair: bool = False
    player_pair: bool = False
    natural: bool = False

    def __post_init__(self) -> None:
        if self.result not in _STAT_OF_RESULT:
            raise ValueError(f"a coup's result is 'B', 'P' or 'T', not {self.result!r}")


class SequenceError(ValueError):
    """A character of a coup sequence that is not understood; ``position`` is 1-based."""

    def __init__(self, char: str, position: int, reason: str) -> None:
        super().__init__(f"bad character {char!r} at position {position} of the sequence: {reason}")
        self.char = char
        self.position = position


def parse_sequence(sequence: str) -> list[Coup]:
    """``'BbPTpB'`` -> coups: B, P or T, each optionally followed by ``b`` and/or ``p`` (pairs)."""
    coups: list[Coup] = []
    for position, char in enumerate(sequence, start=1):
        if char in _STAT_OF_RESULT:
            coups.append(Coup(char))
            continue
        if char not in "bp":
            raise SequenceError(char, position, f"expected {SEQUENCE_HELP}")
        if not coups:
            raise SequenceError(char, position, "a pair must follow B, P or T")
        pair = "banker_pair" if char == "b" else "player_pair"
        if getattr(coups[-1], pair):
            raise SequenceError(char, position, "this pair is already given for the coup")
        coups[-1] = replace(coups[-1], **{pair: True})
    return coups


class StreakGrid:
    """Draws streaks on a 6-row grid, with dragon tails.

    A streak goes down until the last row or an occupied cell (an earlier tail),
    then turns right along that row. A new streak starts on row 0 of the column
    after the previous streak's start, or further right when a tail on row 0
    already holds that cell.
    """

    __slots__ = ("_col", "_row", "_start", "_taken")

    def __init__(self) -> None:
        self._taken: set[tuple[int, int]] = set()
        self._start = self._col = -1
        self._row = 0

    def place(self, new_streak: bool) -> tuple[int, int]:
        """The drawn (col, row) of the next cell, a new streak's first or the current streak's next."""
        if new_streak or self._start < 0:
            col, row = self._start + 1, 0
            while (col, 0) in self._taken:
                col += 1
            self._start = col
        elif self._col == self._start and self._row < ROWS - 1 and (self._col, self._row + 1) not in self._taken:
            col, row = self._col, self._row + 1
        else:
            col, row = self._col + 1, self._row
        self._taken.add((col, row))
        self._col, self._row = col, row
        return col, row


@dataclass(slots=True)
class BigRoadEntry:
    """A Banker or Player coup on the Big Road: ``col``/``row`` drawn, ``ties`` after it (and leading ties)."""

    result: str
    banker_pair: bool
    player_pair: bool
    col: int
    row: int
    ties: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "ties": self.ties,
            "banker_pair": self.banker_pair,
            "player_pair": self.player_pair,
        }

    def as_cell(self) -> dict[str, Any]:
        return {"col": self.col, "row": self.row, **self.as_dict()}


class BigRoad:
    """Streak columns; ties count on the entry they follow (leading ties on the first entry)."""

    __slots__ = ("_grid", "columns", "entries", "leading_ties")

    def __init__(self) -> None:
        self.leading_ties = 0
        self.columns: list[list[BigRoadEntry]] = []
        self.entries: list[BigRoadEntry] = []
        self._grid = StreakGrid()

    def add(self, coup: Coup) -> BigRoadEntry | None:
        """Record a coup; the new entry, or None for a tie."""
        if coup.result == TIE:
            if self.entries:
                self.entries[-1].ties += 1
            else:
                self.leading_ties += 1
            return None
        new_column = not self.columns or self.columns[-1][0].result != coup.result
        col, row = self._grid.place(new_column)
        ties = 0 if self.entries else self.leading_ties
        entry = BigRoadEntry(coup.result, coup.banker_pair, coup.player_pair, col, row, ties)
        if new_column:
            self.columns.append([entry])
        else:
            self.columns[-1].append(entry)
        self.entries.append(entry)
        return entry

    def next_position(self, result: str) -> tuple[int, int]:
        """The logical (column, row) a Banker or Player coup would take next."""
        if not self.columns:
            return 0, 0
        last = self.columns[-1]
        if last[0].result == result:
            return len(self.columns) - 1, len(last)
        return len(self.columns), 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "leading_ties": self.leading_ties,
            "columns": [[entry.as_dict() for entry in column] for column in self.columns],
            "cells": [entry.as_cell() for entry in self.entries],
        }


def derived_mark(columns: Sequence[Sized], col: int, row: int, cycle: int) -> str | None:
    """The mark a Big Road entry at logical (col, row) makes on the derived road of ``cycle`` (1, 2 or 3).

    Row 0 compares the depths of columns col-1 and col-1-cycle (same: red). A lower
    row compares the cells at row and row-1 of column col-cycle: they differ (blue)
    only when that column is exactly ``row`` deep. None where a column is missing,
    which is the seed's "wait until the entry after the first entry of column cycle+1".
    """
    if row == 0:
        if col - 1 - cycle < 0:
            return None
        return RED if len(columns[col - 1]) == len(columns[col - 1 - cycle]) else BLUE
    if col - cycle < 0:
        return None
    return BLUE if len(columns[col - cycle]) == row else RED


class DerivedRoad:
    """Big Eye Road (cycle 1), Small Road (2) or Cockroach Road (3): marks drawn as streaks of one colour."""

    __slots__ = ("_grid", "cells", "cycle", "marks")

    def __init__(self, cycle: int) -> None:
        self.cycle = cycle
        self.marks: list[str] = []
        self.cells: list[tuple[int, int]] = []
        self._grid = StreakGrid()

    def add(self, mark: str) -> None:
        self.cells.append(self._grid.place(not self.marks or self.marks[-1] != mark))
        self.marks.append(mark)

    def as_dict(self) -> dict[str, Any]:
        return {
            "marks": self.marks.copy(),
            "cells": [
                {"col": col, "row": row, "color": mark} for (col, row), mark in zip(self.cells, self.marks, strict=True)
            ],
        }


class Roadmap:
    """All five roads, the ask roads and the statistics of one shoe, fed one coup at a time."""

    __slots__ = ("big_road", "coups", "derived", "stats")

    def __init__(self) -> None:
        self.coups: list[Coup] = []
        self.big_road = BigRoad()
        self.derived = {name: DerivedRoad(cycle) for name, cycle in DERIVED_CYCLES.items()}
        self.stats = dict.fromkeys(("coups", "banker", "player", "tie", "banker_pair", "player_pair", "natural"), 0)

    def add(self, coup: Coup) -> None:
        self.coups.append(coup)
        self._count(coup)
        if self.big_road.add(coup) is None:
            return
        columns = self.big_road.columns
        col, row = len(columns) - 1, len(columns[-1]) - 1
        for road in self.derived.values():
            mark = derived_mark(columns, col, row, road.cycle)
            if mark is not None:
                road.add(mark)

    def _count(self, coup: Coup) -> None:
        stats = self.stats
        stats["coups"] += 1
        stats[_STAT_OF_RESULT[coup.result]] += 1
        stats["banker_pair"] += coup.banker_pair
        stats["player_pair"] += coup.player_pair
        stats["natural"] += coup.natural

    def ask(self) -> dict[str, dict[str, str | None]]:
        """The next mark of each derived road if the next coup were Banker, and if it were Player."""
        columns = self.big_road.columns
        asks = {}
        for side, result in (("banker", BANKER), ("player", PLAYER)):
            col, row = self.big_road.next_position(result)
            asks[side] = {name: derived_mark(columns, col, row, road.cycle) for name, road in self.derived.items()}
        return asks

    def bead_plate(self) -> list[dict[str, Any]]:
        return [
            {
                "col": index // ROWS,
                "row": index % ROWS,
                "result": coup.result,
                "banker_pair": coup.banker_pair,
                "player_pair": coup.player_pair,
            }
            for index, coup in enumerate(self.coups)
        ]

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready roadmap (fresh objects: the caller may change them)."""
        return {
            "bead_plate": self.bead_plate(),
            "big_road": self.big_road.as_dict(),
            **{name: road.as_dict() for name, road in self.derived.items()},
            "ask": self.ask(),
            "stats": dict(self.stats),
        }


def build_roadmap(coups: Iterable[Coup]) -> dict[str, Any]:
    """The roadmap dict of a whole sequence of coups (see ``Roadmap.to_dict``)."""
    roadmap = Roadmap()
    for coup in coups:
        roadmap.add(coup)
    return roadmap.to_dict()
