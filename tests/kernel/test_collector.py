"""A web process's cycle collector (``kernel.collector``): left as it is when the application is imported (tests do),
tuned when a server starts it (the ASGI lifespan): start-up's objects frozen, collections less often, and cycles a
request leaves still collected without anyone asking."""

import subprocess
import sys
from pathlib import Path

from kernel.collector import OLDER_THRESHOLDS, YOUNG_THRESHOLD

ROOT = Path(__file__).resolve().parents[2]
WEB_PROCESS = """
import asyncio, gc, weakref
from casino.asgi import application  # what uvicorn loads
print(gc.get_freeze_count(), *gc.get_threshold())

async def server_starts():
    said = []
    messages = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
    async def receive():
        return next(messages)
    async def send(message):
        said.append(message["type"])
    await application({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send)
    print(*said)

asyncio.run(server_starts())
class Node: pass
node = Node(); node.itself = node; left = weakref.ref(node); del node  # a cycle: only the collector frees it
for _ in range(4 * {young}): garbage = []; garbage.append(garbage)  # a busy process's cycles
print(gc.get_freeze_count(), *gc.get_threshold(), gc.isenabled(), left() is None)
"""


def test_a_web_server_s_start_freezes_what_start_up_made_and_cycles_are_still_collected():
    answer = subprocess.run(
        [sys.executable, "-c", WEB_PROCESS.replace("{young}", str(YOUNG_THRESHOLD))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    imported, started, tuned = answer.stdout.splitlines()
    assert imported.split() == ["0", "700", "10", "10"]  # importing the application changes nothing
    assert started == "lifespan.startup.complete lifespan.shutdown.complete"
    frozen, *thresholds, enabled, collected = tuned.split()
    assert int(frozen) > 50_000  # Django, the apps, the URL patterns...
    assert tuple(map(int, thresholds)) == (YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
    assert (enabled, collected) == ("True", "True")
