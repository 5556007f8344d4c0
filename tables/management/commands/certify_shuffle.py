"""Certify the shuffle statistically: ``manage.py certify_shuffle [--shoes N] [--decks D] [--seed S] [--json]``."""

import json
import time
from functools import partial
from random import Random

from django.core.management.base import BaseCommand, CommandError, CommandParser

from baccarat.certify import DEFAULT_DECKS, DEFAULT_SHOES, MIN_SHOES, Certification, certify, default_shuffle
from baccarat.shoe import shuffle

MAX_DECKS = 8


class Command(BaseCommand):
    help = (
        "Shuffle N shoes and run five statistical tests at the 99% level: card positions, first-coup outcomes, "
        "runs, serial correlation and a small-deck permutation test. Exits non-zero if any test fails."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--shoes", type=int, default=DEFAULT_SHOES, help=f"shoes to shuffle, at least {MIN_SHOES} (default 2000)"
        )
        parser.add_argument(
            "--decks", type=int, default=DEFAULT_DECKS, help=f"decks per shoe, 1-{MAX_DECKS} (default 8)"
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=None,
            help="reproducible run: the same Fisher–Yates on random.Random(SEED) instead of the OS CSPRNG "
            "(checks the algorithm, not the production random source)",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options) -> None:
        shoes, decks, seed = options["shoes"], options["decks"], options["seed"]
        if shoes < MIN_SHOES:
            raise CommandError(f"--shoes must be at least {MIN_SHOES}, not {shoes}")
        if not 1 <= decks <= MAX_DECKS:
            raise CommandError(f"--decks must be 1 to {MAX_DECKS}, not {decks}")
        if seed is None:
            shuffler, source = default_shuffle, "Fisher–Yates, secrets.SystemRandom"
        else:
            shuffler, source = partial(shuffle, rng=Random(seed)), f"Fisher–Yates, random.Random({seed})"
        started = time.perf_counter()
        try:
            result = certify(shuffler, shoes=shoes, decks=decks)
        except ValueError as error:  # a sample too small for the tests, a shuffle that loses cards
            raise CommandError(str(error)) from error
        seconds = time.perf_counter() - started
        if options["json"]:
            self.stdout.write(json.dumps({"shuffle": source, "seconds": round(seconds, 2), **result.as_dict()}))
        else:
            self._print(result, source, seconds)
        if not result.passed:
            raise CommandError(
                f"the shuffle FAILED certification at the {1 - result.alpha:.0%} level: "
                f"{len(result.failures)} of {len(result.checks)} tests failed ({', '.join(result.failures)})"
            )

    def _print(self, result: Certification, source: str, seconds: float) -> None:
        write = self.stdout.write
        write(
            f"Shuffle certification: {result.shoes} shoes of {result.decks} deck{'s' if result.decks > 1 else ''} "
            f"({52 * result.decks} cards), {source}"
        )
        write(f"Level: alpha = {result.alpha} ({1 - result.alpha:.0%} confidence); {seconds:.1f} s")
        write("")
        write(f"{'Test':<20} {'Statistic':>16} {'df':>5} {'p-value':>10}  Result")
        for check in result.checks:
            symbol = "chi2" if check.distribution == "chi2" else "z"
            df = "" if check.df is None else str(check.df)
            write(
                f"{check.name:<20} {symbol:>4} = {check.statistic:>9.3f} {df:>5} {check.p_value:>10.4g}  "
                f"{'PASS' if check.passed else 'FAIL'}"
            )
        write("")
        for check in result.checks:
            write(f"{check.name}: {check.title}; {check.samples} samples")
            write(f"  {self._summary(check)}")
        write("")
        passed = sum(check.passed for check in result.checks)
        write(f"Verdict: {'PASS' if result.passed else 'FAIL'} ({passed} of {len(result.checks)} tests passed)")

    @staticmethod
    def _summary(check) -> str:
        details = check.details
        if check.name == "card_positions":
            return (
                f"{details['bins']} bins, >= {details['expected_per_bin']:.0f} expected per bin; worst card "
                f"{details['worst_card']} (p = {details['worst_card_p_value']:.4g}), Bonferroni x52; "
                f"cards below alpha on their own: {details['cards_below_alpha']}"
            )
        if check.name == "coup_outcomes":
            return ", ".join(
                f"{outcome} {details['observed'][outcome]} (expected {details['expected'][outcome]:.1f})"
                for outcome in details["observed"]
            )
        if check.name == "runs":
            return f"mean runs per shoe {details['mean_runs']:.3f} (expected {details['expected_runs']:.3f})"
        if check.name == "serial_correlation":
            return (
                f"mean lag-1 correlation {details['mean_correlation']:.6f} "
                f"(expected {details['expected_correlation']:.6f}, sd per shoe {details['sd_per_shoe']:.6f})"
            )
        return (
            f"deck {' '.join(details['cards'])}: counts {details['min_count']}-{details['max_count']} "
            f"(expected {details['expected_per_order']:.0f} per order)"
        )
