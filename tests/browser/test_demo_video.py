"""The demo's live video (issue 32): ``manage.py serve --demo-video``, scripts/run.sh's server, gives live3 a live
test stream (ffmpeg: the felt, the table's name, a running clock, low-latency HLS) on the site's own origin. A
second server of that kind on the browser tests' database (the session's server runs none: its encoders would cost
CPU through every test): live3's page plays the stream at 1440 x 900 and 390 x 844 (the video advances and fills
the stage, the page no taller than the window, no console error, no CSP violation); the lobby's card of live3 shows
a still of the stream, taken again every few seconds; stopped, the server takes its encoders, the table's video and
the files with it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.conftest import (
    ROOT,
    Server,
    free_port,
    no_console_errors,
    open_table,
    players_created,
    screenshot,
    wait_until_up,
)
from tests.browser.test_table_layouts import SIZES
from tests.browser.test_video import PLAYING, video_state

pytestmark = pytest.mark.browser

VIEWER = "vidaviewer"  # a player of this test's own (test_history has dora)
PLAYLIST = "/video/live3/live.m3u8"
VIDEO_URL = "from tables.models import Table; print(repr(Table.objects.get(code='live3').video_url))"
VIDEO_SET_EMPTY = (
    "from tables.models import Table; Table.objects.filter(code__in=['live3', 'live4']).update(video_url='')"
)

# The share of the stage's inside (within its border) the video's box covers, and the page's height against the
# window's.
STAGE_FILL = """() => {
  const element = document.querySelector(".stage"), box = element.getBoundingClientRect();
  const [left, top] = [box.left + element.clientLeft, box.top + element.clientTop];
  const [width, height] = [element.clientWidth, element.clientHeight];
  const video = document.querySelector("[data-video] video").getBoundingClientRect();
  const overlap = (a0, a1, b0, b1) => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
  const area = overlap(left, left + width, video.left, video.right)
    * overlap(top, top + height, video.top, video.bottom);
  return {covered: area / (width * height), scrollHeight: document.documentElement.scrollHeight,
          innerHeight: window.innerHeight};
}"""

STILL_SHOWN = "(still) => still.complete && still.naturalWidth === 640 && !still.hidden"


@dataclass
class DemoServer:
    url: str
    process: subprocess.Popen
    videos: Path  # its DEMO_VIDEO_ROOT

    def encoders(self) -> list[int]:
        """The server's ffmpeg children."""
        return [pid for pid, (name, parent) in _processes().items() if name == "ffmpeg" and parent == self.process.pid]


def _processes() -> dict[int, tuple[str, int]]:
    """Every running process (not a zombie): its name and its parent's pid."""
    running = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # ended meanwhile
        name, (state, parent) = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()[:2]
        if state != "Z":
            running[int(stat.parent.name)] = (name, int(parent))
    return running


def _wait_for_playlist(url: str) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.read().count(b"#EXTINF") >= 3:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"no live playlist at {url} in 20 s")


@pytest.fixture
def demo_server(server: Server, tmp_path: Path) -> Iterator[DemoServer]:
    if shutil.which("ffmpeg") is None:
        pytest.skip("needs Debian's ffmpeg for the demo's test stream: bash scripts/install-browser.sh")
    port = free_port()
    log = tmp_path / "demo-server.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "serve", "--demo-video", "--port", str(port)],
            env={**server.env, "DEMO_VIDEO_ROOT": str(tmp_path / "video")},
            cwd=ROOT,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    demo = DemoServer(url=f"http://127.0.0.1:{port}", process=process, videos=tmp_path / "video")
    try:
        wait_until_up(demo.url, process, log)
        _wait_for_playlist(f"{demo.url}{PLAYLIST}")
        yield demo
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        server.manage("shell", "-c", VIDEO_SET_EMPTY)  # whatever happened, live3 as the other tests know it


def test_the_demo_dealer_table_plays_its_live_test_stream_and_the_server_takes_it_away(
    browser: Browser, server: Server, demo_server: DemoServer
):
    players_created(server, VIEWER)
    encoders = demo_server.encoders()
    assert len(encoders) == 2, "an encoder for each demo dealer table (live3, live4)"
    for size in ("desktop", "phone-portrait"):
        context = browser.new_context(base_url=demo_server.url, **SIZES[size])
        page = open_table(context, VIEWER, "live3")
        expect(page.locator("[data-video]")).to_have_attribute("data-video-url", PLAYLIST)
        page.wait_for_function(PLAYING, timeout=30_000)
        start = video_state(page)["currentTime"]
        page.wait_for_timeout(2000)
        assert video_state(page)["currentTime"] > start + 1, "the live video does not advance"
        expect(page.locator("[data-video-status]")).to_be_hidden()
        # The video fills the stage (the hands and the result over it) and the page stays one screen.
        fill = page.evaluate(STAGE_FILL)
        assert fill["covered"] >= 0.97, f"the video covers {fill['covered']:.0%} of the stage at {size}"
        assert fill["scrollHeight"] <= fill["innerHeight"], f"the page is taller than the window at {size}: {fill}"
        screenshot(page, f"demo-video-live3-{page.viewport_size['width']}x{page.viewport_size['height']}")
        assert no_console_errors(page) == []
        context.close()

    # The lobby: live3's card shows a still of its stream a few seconds old (the site's own, under the lobby's CSP),
    # taken again every few seconds; pb1's card, no video, its cards and road alone.
    context = browser.new_context(base_url=demo_server.url, **SIZES["phone-portrait"])
    lobby = context.new_page()
    lobby.goto("/")
    still = lobby.locator('[data-lobby-table="live3"] [data-still]')
    expect(still).to_be_visible()
    lobby.wait_for_function(STILL_SHOWN, arg=still.element_handle())
    expect(still).to_have_attribute("src", re.compile(r"^/video/live3/still\.jpg\?at=\d+$"), timeout=10_000)
    lobby.wait_for_function(STILL_SHOWN, arg=still.element_handle())
    assert lobby.locator('[data-lobby-table="pb1"] [data-still]').count() == 0
    screenshot(lobby, "demo-video-lobby-still")
    assert no_console_errors(lobby) == []
    context.close()

    # Stopped as scripts/run.sh's server is (Ctrl-C, or SIGTERM from whatever runs it): its encoders with it, the
    # table back to no video (the page's "no video" stage), the stream's files gone.
    demo_server.process.terminate()
    demo_server.process.wait(timeout=20)
    assert set(encoders).isdisjoint(_processes())
    assert server.manage("shell", "-c", VIDEO_URL).strip().splitlines()[-1] == "''"
    assert not (demo_server.videos / "live3").exists()
