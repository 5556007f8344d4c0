"""Exact odds of every bet: ``manage.py baccarat_odds [--decks N] [--remove "CARD CARD ..."] [--json]``."""

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from baccarat.cards import parse_cards
from baccarat.odds import Analysis, ShoeComposition, analyze

MAX_DECKS = 8


class Command(BaseCommand):
    help = "Exact outcome counts, house edge and RTP of every bet for a shoe (all ordered 6-card deals)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--decks", type=int, default=MAX_DECKS, help=f"decks in the shoe, 1-{MAX_DECKS} (default 8)"
        )
        parser.add_argument("--remove", default="", help='cards already dealt, e.g. "AS TD 7H"')
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options) -> None:
        decks = options["decks"]
        if not 1 <= decks <= MAX_DECKS:
            raise CommandError(f"--decks must be 1 to {MAX_DECKS}, not {decks}")
        try:
            shoe = ShoeComposition.full(decks).remove(parse_cards(options["remove"]))
            analysis = analyze(shoe)
        except ValueError as error:  # a bad card code, a card the shoe no longer holds, too few cards
            raise CommandError(str(error)) from error
        if options["json"]:
            self.stdout.write(json.dumps(self._as_dict(decks, analysis)))
        else:
            self._print(decks, analysis)

    @staticmethod
    def _as_dict(decks: int, analysis: Analysis) -> dict:
        return {
            "decks": decks,
            "cards": analysis.composition.size,
            "total": analysis.total,
            "outcomes": dict(analysis.outcomes),
            "bets": {
                bet: {"house_edge": float(odds.house_edge), "rtp": float(odds.rtp)}
                for bet, odds in analysis.bets.items()
            },
        }

    def _print(self, decks: int, analysis: Analysis) -> None:
        total = analysis.total
        write = self.stdout.write
        write(f"{decks} decks, {analysis.composition.size} cards in the shoe: {total:,} ordered 6-card deals")
        write("")
        write(f"{'Outcome':<8} {'Combinations':>27} {'Probability':>12}")
        for outcome, count in analysis.outcomes.items():
            write(f"{outcome.capitalize():<8} {count:>27,} {count / total:>12.6f}")
        write("")
        write(f"{'Bet':<24} {'House edge':>11} {'RTP':>10}")
        for odds in analysis.bets.values():
            write(f"{odds.label:<24} {float(odds.house_edge):>11.4%} {float(odds.rtp):>10.4%}")
        for odds in analysis.bets.values():
            write("")
            write(odds.label)
            write(f"  {'Event':<14} {'Pays':>6} {'Combinations':>27} {'Probability':>12} {'Return':>10}")
            for event, count in odds.events.items():
                net = odds.nets[event]
                returned = float(net * count / total)
                write(f"  {event:<14} {float(net):>6g} {count:>27,} {count / total:>12.6f} {returned:>10.6f}")
            write(f"  {'Total':<14} {'':>6} {total:>27,} {1:>12.6f} {float(-odds.house_edge):>10.6f}")
