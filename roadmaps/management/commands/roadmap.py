"""The roadmaps of a sequence of coups: ``manage.py roadmap --sequence BbPTpB [--json]``."""

import json
from collections.abc import Callable, Iterable
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from baccarat.roads import DERIVED_CYCLES, ROWS, SEQUENCE_HELP, Coup, SequenceError, build_roadmap, parse_sequence
from roadmaps.selectors import shoe_road_coups
from tables.models import Shoe

_COLOR_LETTER = {"red": "R", "blue": "B", None: "-"}


class Command(BaseCommand):
    help = "Print the five roadmaps, the ask roads and the statistics of a sequence of coups."

    def add_arguments(self, parser: CommandParser) -> None:
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--sequence", help=f"one letter per coup: {SEQUENCE_HELP}, e.g. BbPTpB")
        source.add_argument("--shoe", type=int, help="the id of a shoe in the database")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options) -> None:
        if options["shoe"] is not None:
            coups = self._coups_from_shoe(options["shoe"])
        else:
            coups = self._coups_from_sequence(options["sequence"])
        roadmap = build_roadmap(coups)
        self.stdout.write(json.dumps(roadmap) if options["json"] else render_text(roadmap))

    @staticmethod
    def _coups_from_sequence(sequence: str) -> list[Coup]:
        try:
            return parse_sequence(sequence)
        except SequenceError as error:
            raise CommandError(str(error)) from error

    @staticmethod
    def _coups_from_shoe(shoe_id: int) -> list[Coup]:
        if not Shoe.objects.filter(pk=shoe_id).exists():
            raise CommandError(f"no shoe with id {shoe_id}")
        return shoe_road_coups(shoe_id=shoe_id)


def render_text(roadmap: dict[str, Any]) -> str:
    """Character grids of the five roads, then the ask roads and the statistics."""
    big_road = roadmap["big_road"]
    sections = [
        ("Bead Plate (b banker pair, p player pair)", _grid(roadmap["bead_plate"], _bead_text)),
        (
            f"Big Road (digit: ties after the coup), leading ties: {big_road['leading_ties']}",
            _grid(big_road["cells"], _big_road_text),
        ),
        *(
            (f"{name.replace('_', ' ').title()} (R red, B blue)", _grid(roadmap[name]["cells"], _mark_text))
            for name in DERIVED_CYCLES
        ),
    ]
    lines = [line for title, grid in sections for line in (title, grid, "")]
    for side, marks in roadmap["ask"].items():
        asks = " ".join(f"{name}={_COLOR_LETTER[color]}" for name, color in marks.items())
        lines.append(f"{side.title()}? {asks}")
    lines.append(" ".join(f"{key}={value}" for key, value in roadmap["stats"].items()))
    return "\n".join(lines)


def _grid(cells: Iterable[dict[str, Any]], text: Callable[[dict[str, Any]], str]) -> str:
    drawn = {(cell["col"], cell["row"]): text(cell) for cell in cells}
    width = max((col for col, _ in drawn), default=-1) + 1
    if not width:
        return "(empty)"
    blank = " " * len(next(iter(drawn.values())))
    return "\n".join("|" + "|".join(drawn.get((col, row), blank) for col in range(width)) + "|" for row in range(ROWS))


def _bead_text(cell: dict[str, Any]) -> str:
    return cell["result"] + ("b" if cell["banker_pair"] else " ") + ("p" if cell["player_pair"] else " ")


def _big_road_text(cell: dict[str, Any]) -> str:
    ties = cell["ties"]
    return cell["result"] + (" " if not ties else str(ties) if ties < 10 else "+")


def _mark_text(cell: dict[str, Any]) -> str:
    return _COLOR_LETTER[cell["color"]]
