"""A dealer table's live video (issue 19): a live HLS stream the test makes itself (Debian's ffmpeg: H.264
baseline and AAC in 1 s segments, served with CORS by a small server of the test's own) set as live3's video.
At 1440 x 900, 390 x 844 and 844 x 390 the player's table page plays it as the stage's centre (the table still
on one screen), the Sound button mutes and unmutes it, a click on it toggles full screen; the encoder killed,
each page says "Video unavailable" while the table goes on, and it plays again by itself once the encoder is
back. No console error (a CSP violation is one)."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.browser.conftest import Server, open_table, players_created, screenshot, staff_sign_in
from tests.browser.test_table_layouts import ON_SCREEN, SIZES

pytestmark = pytest.mark.browser

FFMPEG = shutil.which("ffmpeg")
VIEWER = "vera"  # a player of this test's own
SIZE_NAMES = {"desktop": "1440x900", "phone-portrait": "390x844", "phone-landscape": "844x390"}
VIDEO_SET = (
    "from tables.models import Table; from tables.services import table_rules_update\n"
    "table_rules_update(table=Table.objects.get(code='live3'), actor=None, changes={{'video_url': {url!r}}}, "
    "reason='browser test: the live video')"
)
# Live, in real time: a small test pattern (light on a busy machine) and a tone, H.264 baseline and AAC, 1 s
# segments, 6 in the playlist, old ones deleted; segment numbers from the clock, so that a restarted encoder's
# never take an old one's name.
ENCODE = (
    "-hide_banner -loglevel error -re -f lavfi -i testsrc2=size=640x360:rate=25 "
    "-f lavfi -i sine=frequency=440:sample_rate=48000 "
    "-c:v libx264 -profile:v baseline -preset ultrafast -tune zerolatency -pix_fmt yuv420p "
    "-g 25 -keyint_min 25 -sc_threshold 0 -c:a aac -b:a 96k "
    "-f hls -hls_time 1 -hls_list_size 6 -hls_flags delete_segments+omit_endlist+independent_segments "
    "-hls_start_number_source epoch"
)
# A resolved coup for the snapshot (no dealer deals at live3 here): the cards over the video, readable.
DEALT = {
    "round_id": "LIVE3-VIDEO",
    "number": 1,
    "shoe": 1,
    "state": "resolved",
    "no_bet": False,
    "betting_closes_at": None,
    "cards": [
        {"position": position, "hand": hand, "card": card}
        for position, (hand, card) in enumerate(
            [("player", "KH"), ("banker", "7S"), ("player", "4D"), ("banker", "QC"), ("player", "3C")]
        )
    ],
    "player_total": 7,
    "banker_total": 7,
    "winner": "tie",
    "player_pair": False,
    "banker_pair": False,
    "natural": False,
    "shown_by": {"player": "dealer", "banker": "dealer"},
    "banker_shown_first": False,
}
PLAYING = """() => {
    const video = document.querySelector("[data-video] video");
    return video?.closest("[data-video]").dataset.state === "playing" && video.readyState >= 2;
}"""


class StreamHandler(SimpleHTTPRequestHandler):
    """The stream's origin: its files, never cached, readable from the table page's origin (CORS)."""

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args: object) -> None:
        pass


class StreamServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # hls.js drops a request it no longer needs: a broken pipe here is no failure


class LiveStream:
    """ffmpeg encoding a test pattern and a tone in real time to HLS in ``folder``, which ``url`` serves."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.http = StreamServer(("127.0.0.1", 0), functools.partial(StreamHandler, directory=str(folder)))
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.http.server_port}/live.m3u8"
        self.encoder: subprocess.Popen | None = None

    def start(self) -> None:
        output = ["-hls_segment_filename", str(self.folder / "segment-%d.ts"), str(self.folder / "live.m3u8")]
        self.encoder = subprocess.Popen([FFMPEG, *ENCODE.split(), *output])
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            playlist = self.folder / "live.m3u8"
            if playlist.exists() and playlist.read_text().count("#EXTINF") >= 3:
                return
            time.sleep(0.2)
        raise RuntimeError("ffmpeg wrote no live playlist in 20 s")

    def kill(self) -> None:
        """The encoder dies: the playlist stays as it was (the origin still answers, nothing new comes)."""
        if self.encoder is not None:
            self.encoder.kill()
            self.encoder.wait()
            self.encoder = None

    def close(self) -> None:
        self.kill()
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def stream(tmp_path: Path, server: Server) -> Iterator[LiveStream]:
    if FFMPEG is None:
        pytest.skip("needs Debian's ffmpeg: bash scripts/install-browser.sh")
    live = LiveStream(tmp_path)
    live.start()
    server.manage("shell", "-c", VIDEO_SET.format(url=live.url))
    try:
        yield live
    finally:
        server.manage("shell", "-c", VIDEO_SET.format(url=""))
        live.close()


def with_cards(socket: WebSocketRoute) -> None:
    """The table's socket, its snapshots carrying DEALT as the coup."""
    server = socket.connect_to_server()

    def pass_on(message: str | bytes) -> None:
        event = json.loads(message)
        if event.get("type") == "snapshot":
            event["data"]["coup"] = DEALT
            message = json.dumps(event)
        socket.send(message)

    server.on_message(pass_on)


def video_state(page: Page) -> dict:
    return page.evaluate("""() => {
        const video = document.querySelector("[data-video] video");
        return {currentTime: video.currentTime, readyState: video.readyState, muted: video.muted};
    }""")


def off_screen(page: Page) -> list[str]:
    """What a player must see at once (the timer aside: no coup is betting) that is not wholly on the screen."""
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    wanted = {name: selector for name, selector in ON_SCREEN.items() if name != "the timer"}
    outside = []
    for name, selector in {**wanted, "the video": "[data-video]"}.items():
        box = page.locator(selector).bounding_box()
        if not (box and box["y"] >= 0 and box["y"] + box["height"] <= height and 0 <= box["x"] <= width - box["width"]):
            outside.append(f"{name}: {box}")
    return outside


def table_action(pit: Page, action: str) -> None:
    """An action of the Table admin on live3, confirmed with a reason."""
    pit.goto("/admin/tables/table/")
    pit.locator("tr", has=pit.get_by_role("link", name="live3", exact=True)).locator("input.action-select").check()
    pit.locator("select[name=action]").select_option(label=action)
    pit.get_by_role("button", name="Go").click()
    pit.get_by_label("Reason").fill("browser test: the video's outage")
    pit.get_by_role("button", name="Confirm").click()
    expect(pit.locator(".messagelist")).to_be_visible()


def test_the_dealer_table_video_plays_survives_its_stream_going_down_and_recovers(
    browser: Browser, server: Server, stream: LiveStream
):
    players_created(server, VIEWER)
    pages: dict[str, Page] = {}
    errors: list[str] = []
    for size, options in SIZES.items():
        context = browser.new_context(base_url=server.url, **options)
        context.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        context.on("weberror", lambda error: errors.append(str(error.error)))
        context.route_web_socket(re.compile(r"/ws/tables/live3/$"), with_cards)
        pages[size] = open_table(context, VIEWER, "live3")
    try:
        for size, page in pages.items():
            name = SIZE_NAMES[size]
            video = page.locator("[data-video] video")
            expect(video).to_be_visible()
            page.wait_for_function(PLAYING, timeout=30_000)
            start = video_state(page)
            page.wait_for_timeout(1500)
            assert video_state(page)["currentTime"] > start["currentTime"], "the video does not advance"
            assert start["muted"], "a video autoplays muted"
            page.evaluate("window.scrollTo(0, 0)")
            assert off_screen(page) == [], f"{name}: not on one screen"
            assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
            screenshot(page, f"video-playing-{name}")

            # The Sound button: the video follows the player's sound (the click is the gesture that allows it).
            sound = page.get_by_role("toolbar", name="Table tools").get_by_role("button", name="Sound")
            for _ in range(2):
                sound.click()
                aloud = sound.get_attribute("aria-pressed") == "true"
                assert video_state(page)["muted"] is not aloud

            # A click on the video: the stage full screen; again: back.
            video.click()
            page.wait_for_function("document.fullscreenElement?.matches('.stage')")
            screenshot(page, f"video-fullscreen-{name}")
            page.locator("[data-video] video").click()
            page.wait_for_function("document.fullscreenElement === null")

        # The encoder dies: every page says so, and the table goes on: the pit boss closes and opens it, the
        # pages follow; the pit boss points the table at another camera of the same origin, the pages follow.
        stream.kill()
        for size, page in pages.items():
            status = page.locator("[data-video-status]")
            expect(status).to_have_text("Video unavailable — the game goes on", timeout=30_000)
            expect(page.locator("[data-connection]")).to_have_text("Live")
            screenshot(page, f"video-unavailable-{SIZE_NAMES[size]}")
        pit = staff_sign_in(browser.new_context(base_url=server.url), server, "pitboss", "/admin/tables/table/")
        for action, phase in (("Close the selected tables", "The table is closed"), ("Open the selected tables", "")):
            table_action(pit, action)
            for page in pages.values():
                expect(page.locator(".phase[data-phase]")).to_have_text(
                    phase or re.compile(r"^(?!The table is closed)")
                )
        camera = f"{stream.url}?camera=2"
        pit.get_by_role("link", name="live3", exact=True).click()
        pit.get_by_label("Video url").fill(camera)
        pit.locator("#id_reason").fill("camera 2")
        pit.get_by_role("button", name="Save", exact=True).click()
        expect(pit.locator(".messagelist")).to_contain_text("was changed successfully")
        pit.context.close()
        for page in pages.values():
            expect(page.locator("[data-video]")).to_have_attribute("data-video-url", camera)

        # Back: each page plays it again by itself.
        stream.start()
        for size, page in pages.items():
            page.wait_for_function(PLAYING, timeout=45_000)
            expect(page.locator("[data-video-status]")).to_be_hidden()
            screenshot(page, f"video-recovered-{SIZE_NAMES[size]}")
    finally:
        for page in pages.values():
            page.context.close()
    assert errors == []
