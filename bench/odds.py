"""Benchmark the exact odds analyzer: ``.venv/bin/python bench/odds.py``.

Pure code, no database. Measures the one-time set-up and the time of one analysis (the
edge of every bet on offer), for a full 8-deck shoe and for the remaining shoe after every
coup of a few shuffled shoes. Target (issue 8): at most 5 ms per analysis after the set-up,
checked on the median and on the 99th percentile; exits 1 on a miss.
"""

import sys
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import Verdicts, baseline_seconds, describe, percentile, timed

TARGET_SECONDS = 0.005
FULL_SHOE_RUNS = 200
SHOES = 3


def main() -> int:
    unit = baseline_seconds()
    print(f"baseline (pure-Python loop, best of 5): {unit * 1e3:.3f} ms")
    from baccarat import odds  # numpy and the game core
    from baccarat.cards import decks
    from baccarat.coup import deal_coup

    set_up = timed(odds.prepare)
    print(f"one-time set-up (odds.prepare): {set_up * 1e3:.1f} ms ({set_up / unit:.1f} x baseline)")

    full = odds.ShoeComposition.full(8)
    full_times = [timed(lambda: odds.analyze(full)) for _ in range(FULL_SHOE_RUNS)]
    print(f"analysis, full 8-deck shoe: {describe(full_times)}")

    depleted_times: list[float] = []
    for seed in range(SHOES):
        order = decks(8)
        Random(seed).shuffle(order)
        cards = iter(order)
        shoe = full
        while shoe.size >= 2 * odds.COUP_CARDS:  # a coup, then a shoe still fit to analyze
            coup = deal_coup(cards.__next__)
            shoe = shoe.remove(coup.player + coup.banker)
            depleted_times.append(timed(lambda shoe=shoe: odds.analyze(shoe)))
    print(f"analysis after each coup of {SHOES} shoes: {describe(depleted_times)}")

    times = full_times + depleted_times
    p99 = percentile(times, 0.99)
    print(f"p99 per analysis: {p99 / unit:.2f} x baseline")
    verdicts = Verdicts()
    verdicts.check("odds p99 per analysis", p99 * 1e3, TARGET_SECONDS * 1e3, unit=" ms")
    return verdicts.exit_code()


if __name__ == "__main__":
    sys.exit(main())
