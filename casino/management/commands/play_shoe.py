"""Replay a recorded shoe order: ``manage.py play_shoe --cards FILE [--cut-card N] [--json]``."""

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from baccarat.cards import InvalidCardError, parse_cards
from baccarat.coup import DealingError
from baccarat.replay import replay_shoe
from baccarat.rules import CUT_CARD_RULES, CUT_ONE_MORE_COUP
from baccarat.shoe import ShoeExhausted


class Command(BaseCommand):
    help = "Play a recorded shoe (whitespace-separated card codes) through the rules: burn, coups, cut card."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--cards", required=True, help="file of card codes in shoe order ('-' for stdin)")
        parser.add_argument(
            "--cut-card", type=int, default=None, help="cards before the cut card (default: all but 52)"
        )
        parser.add_argument("--cut-card-rule", choices=CUT_CARD_RULES, default=CUT_ONE_MORE_COUP)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options) -> None:
        text = self._read(options["cards"])
        try:
            cards = parse_cards(text)
            if not cards:
                raise CommandError("the shoe file holds no cards")
            replay = replay_shoe(cards, cut_card_position=options["cut_card"], cut_card_rule=options["cut_card_rule"])
        except (InvalidCardError, ShoeExhausted, DealingError, ValueError) as error:
            raise CommandError(str(error)) from error
        if options["json"]:
            self.stdout.write(json.dumps(replay.as_dict()))
            return
        burn = replay.burn
        self.stdout.write(f"Burn: shown {burn.shown}, burned {len(burn.burned)}: {' '.join(map(str, burn.burned))}")
        for number, coup in enumerate(replay.coups, start=1):
            flags = [name for name in ("natural", "player_pair", "banker_pair") if getattr(coup, name)]
            self.stdout.write(
                f"{number:3d}  P {' '.join(map(str, coup.player)):<9} {coup.player_total}"
                f"  B {' '.join(map(str, coup.banker)):<9} {coup.banker_total}  {coup.winner:<6} {' '.join(flags)}"
            )
        self.stdout.write(f"Coups: {len(replay.coups)}, cards left: {replay.cards_left}")

    @staticmethod
    def _read(source: str) -> str:
        if source == "-":
            return sys.stdin.read()
        try:
            return Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"cannot read the shoe file {source!r}: {error}") from error
