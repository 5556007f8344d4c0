"""Benchmark the roadmaps as the live push uses them: ``python bench/roads.py [--shoes N] [--seed S]``.

Pure code, no database. Each coup of random 80-coup shoes is fed to a ``Roadmap``,
then its ask roads and its JSON are built, as every coup is pushed. Target (issue 8):
a whole shoe's roads, incrementally, at most 1 ms per coup; exits 1 on a miss.
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baccarat.roads import Coup, Roadmap
from bench.common import Verdicts, baseline_seconds

COUPS_PER_SHOE = 80
TARGET_SECONDS = 1e-3
RESULT_WEIGHTS = {"B": 45.86, "P": 44.62, "T": 9.52}  # eight-deck punto banco
PAIR_CHANCE = 0.0747
NATURAL_CHANCE = 0.34


def random_shoe(rng: random.Random) -> list[Coup]:
    results = rng.choices(list(RESULT_WEIGHTS), weights=list(RESULT_WEIGHTS.values()), k=COUPS_PER_SHOE)
    return [
        Coup(result, rng.random() < PAIR_CHANCE, rng.random() < PAIR_CHANCE, rng.random() < NATURAL_CHANCE)
        for result in results
    ]


def time_shoes(shoes: list[list[Coup]]) -> tuple[float, float]:
    """Seconds per coup on average, and for the last coup of a shoe (the largest JSON)."""
    total = last = 0.0
    for shoe in shoes:
        roadmap = Roadmap()
        for coup in shoe:
            start = time.perf_counter()
            roadmap.add(coup)
            roadmap.ask()
            json.dumps(roadmap.to_dict())
            elapsed = time.perf_counter() - start
            total += elapsed
        last += elapsed
    return total / (len(shoes) * COUPS_PER_SHOE), last / len(shoes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=80)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    shoes = [random_shoe(rng) for _ in range(args.shoes)]
    baseline = baseline_seconds()
    per_coup, last_coup = time_shoes(shoes)
    print(f"{args.shoes} shoes of {COUPS_PER_SHOE} coups: add + ask + to_dict + json.dumps per coup")
    print(f"  mean      {per_coup * 1e6:8.1f} us  ({per_coup / baseline:.3f} x baseline)")
    print(f"  coup 80   {last_coup * 1e6:8.1f} us  ({last_coup / baseline:.3f} x baseline)")
    print(f"  target    {TARGET_SECONDS * 1e6:8.1f} us  (mean)")
    print(f"  baseline  {baseline * 1e6:8.1f} us  (100,000-step pure-Python loop)")
    verdicts = Verdicts()
    verdicts.check("roads mean per coup", per_coup * 1e3, TARGET_SECONDS * 1e3, unit=" ms")
    return verdicts.exit_code()


if __name__ == "__main__":
    sys.exit(main())
