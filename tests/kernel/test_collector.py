"""A web process's cycle collector (``kernel.collector``): start-up's objects frozen, collections less often, and
cycles a request leaves still collected without anyone asking."""

import subprocess
import sys
from pathlib import Path

from kernel.collector import OLDER_THRESHOLDS, YOUNG_THRESHOLD

ROOT = Path(__file__).resolve().parents[2]
WEB_PROCESS = """
import gc, weakref
import casino.asgi  # what uvicorn loads
class Node: pass
node = Node(); node.itself = node; left = weakref.ref(node); del node  # a cycle: only the collector frees it
for _ in range(4 * {young}): garbage = []; garbage.append(garbage)  # a busy process's cycles
print(gc.get_freeze_count(), *gc.get_threshold(), gc.isenabled(), left() is None)
"""


def test_a_web_process_freezes_what_start_up_made_and_still_collects_cycles_by_itself():
    answer = subprocess.run(
        [sys.executable, "-c", WEB_PROCESS.format(young=YOUNG_THRESHOLD)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    frozen, *thresholds, enabled, collected = answer.stdout.split()
    assert int(frozen) > 50_000  # Django, the apps, the URL patterns...
    assert tuple(map(int, thresholds)) == (YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
    assert (enabled, collected) == ("True", "True")
