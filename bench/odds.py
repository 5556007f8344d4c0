"""Benchmark the exact odds analyzer: ``.venv/bin/python bench/odds.py``.

Measures the one-time set-up and the time of one analysis, for a full 8-deck shoe and for
the remaining shoe after every coup of a few shuffled shoes. Times are also given as a ratio
to a fixed pure-Python loop timed in the same run, so runs on different machines compare.
Exits 1 if any analysis takes 100 ms or more.
"""

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HARD_TARGET = 0.100  # seconds: "well under 100 ms" for an 8-deck analysis
SOFT_TARGET = 0.005  # seconds: the later target, per analysis after the set-up
FULL_SHOE_RUNS = 200
SHOES = 3


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def baseline() -> float:
    """Best of 5 runs of a fixed pure-Python loop (about a millisecond on a current machine)."""

    def loop() -> int:
        total = 0
        for i in range(20_000):
            total += i * i % 7
        return total

    return min(timed(loop) for _ in range(5))


def describe(name: str, times: list[float], unit: float) -> None:
    median, worst = statistics.median(times), max(times)
    print(
        f"{name:<34} n={len(times):<4} median {median * 1e3:7.3f} ms ({median / unit:5.2f} x baseline)"
        f"  min {min(times) * 1e3:7.3f} ms  max {worst * 1e3:7.3f} ms ({worst / unit:5.2f} x)"
    )


def main() -> int:
    unit = baseline()
    print(f"baseline (pure-Python loop, best of 5): {unit * 1e3:.3f} ms")

    start = time.perf_counter()
    from tables.game import odds  # numpy and the game core
    from tables.game.cards import decks
    from tables.game.coup import deal_coup

    imported = time.perf_counter() - start
    set_up = timed(odds.prepare)
    print(f"import (numpy, game core):           {imported * 1e3:8.1f} ms")
    print(f"one-time set-up (odds.prepare):      {set_up * 1e3:8.1f} ms ({set_up / unit:.0f} x baseline)")

    full = odds.ShoeComposition.full(8)
    full_times = [timed(lambda: odds.analyze(full)) for _ in range(FULL_SHOE_RUNS)]
    describe("analysis, full 8-deck shoe", full_times, unit)

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
    describe(f"analysis after each coup, {SHOES} shoes", depleted_times, unit)

    worst = max(full_times + depleted_times)
    median = statistics.median(full_times + depleted_times)
    print(f"target: every analysis well under {HARD_TARGET * 1e3:.0f} ms: worst {worst * 1e3:.3f} ms", end=" ")
    print("MET" if worst < HARD_TARGET else "MISSED")
    print(f"target: <= {SOFT_TARGET * 1e3:.0f} ms per analysis after set-up: median {median * 1e3:.3f} ms", end=" ")
    print("MET" if median <= SOFT_TARGET else "MISSED")
    return 0 if worst < HARD_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
