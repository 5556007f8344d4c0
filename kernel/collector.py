"""Python's cycle collector in a long-running server process.

Out of the box the collector runs its youngest generation every 700 new container objects, and its oldest every
hundred of those, walking every object the process holds: the modules, Django's apps, URL patterns and
templates included. During ``bench/intake.py`` a web process spent 9% of its CPU there (1.0 s of 11.4,
``gc.callbacks`` timed by generation). ``collector_tune_for_serving`` moves what start-up made into the permanent
generation (``gc.freeze``: never walked again) and collects less often: 3% (0.33-0.39 s). What a request or a
socket leaves in cycles is still collected, only later: at most ``YOUNG_THRESHOLD`` objects' worth more memory.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 50_000  # new container objects between two collections of the youngest generation (700)
OLDER_THRESHOLDS = (20, 20)  # collections of a generation between two of the next (10, 10)


def collector_tune_for_serving() -> None:
    """Once, after start-up: start-up's objects frozen, collections less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
