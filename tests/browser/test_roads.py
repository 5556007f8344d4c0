"""The roads on the player's table page, as players read them: named, legible, asked, enlarged.

The page is on a dealer table (nothing deals there by itself) and its WebSocket is routed so that
the snapshot carries the roadmap of a known sequence (``baccarat.roads``) and no later ``roads``
event redraws it.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Locator, Page, WebSocketRoute, expect

from baccarat.roads import build_roadmap, parse_sequence
from tests.browser.conftest import screenshot, sign_in

pytestmark = pytest.mark.browser

# Two leading ties, pairs of both kinds, a dragon tail (seven Bankers), later ties after a coup.
SEQUENCE = "TTBbPPpTBBBBBBBPBPPTTPBbpPPPBPBBPPBTPbBPPBBBP"
ROADMAP = build_roadmap(parse_sequence(SEQUENCE))
ROAD_NAMES = {
    "big_road": "Big Road",
    "bead_plate": "Bead Plate",
    "big_eye_road": "Big Eye Boy",
    "small_road": "Small Road",
    "cockroach_road": "Cockroach Pig",
}
DERIVED = ("big_eye_road", "small_road", "cockroach_road")
DESKTOP = {"width": 1440, "height": 900}
PHONE_PORTRAIT = {"width": 390, "height": 844}
PHONE_LANDSCAPE = {"width": 844, "height": 390}


def block(name: str) -> str:
    return f".road--{name.replace('_', '-')}"


def with_roadmap(roadmap: dict) -> Callable[[WebSocketRoute], None]:
    """A WebSocket route passing the table's events on, the snapshot's roads replaced, ``roads`` events dropped."""

    def route(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def pass_on(message: str | bytes) -> None:
            event = json.loads(message)
            if event.get("type") == "roads":
                return
            if event.get("type") == "snapshot":
                event["data"]["roads"] = roadmap
                message = json.dumps(event)
            socket.send(message)

        server.on_message(pass_on)

    return route


@pytest.fixture
def open_roads(browser: Browser, server_url: str) -> Iterator[Callable[..., Page]]:
    """``open_roads(viewport, phone=False)``: carol's table page showing ROADMAP; no console error allowed."""
    contexts, problems = [], []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            problems.append(message.text)

    def make(viewport: dict, *, phone: bool = False) -> Page:
        context = browser.new_context(base_url=server_url, viewport=viewport, is_mobile=phone, has_touch=phone)
        contexts.append(context)
        page = context.new_page()
        page.on("console", on_console)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.route_web_socket(re.compile(r"/ws/tables/live3/$"), with_roadmap(ROADMAP))
        sign_in(page, "carol", "/tables/live3/")
        expect(page.locator("[data-connection]")).to_have_text("Live")
        expect(page.locator(f".roads-panel {block('bead_plate')} svg")).to_have_attribute(
            "aria-label", re.compile(f"^Bead Plate: {ROADMAP['stats']['coups']} coups")
        )
        return page

    yield make
    for context in contexts:
        context.close()
    assert not problems, problems


def cell_size(board: Locator) -> float:
    """A board's cell size in px: it is 6 cells high."""
    return board.bounding_box()["height"] / 6


def ask_marks(view: Locator) -> dict[str, tuple[int, int]]:
    """The ask marks shown in a view: road name -> (col, row)."""
    marks = {}
    for name in ROAD_NAMES:
        mark = view.locator(f"{block(name)} .road-ask")
        if mark.count():
            marks[name] = (int(mark.get_attribute("data-col")), int(mark.get_attribute("data-row")))
    return marks


def next_spots(result: str, sequence: str = SEQUENCE) -> dict[str, tuple[int, int]]:
    """Where baccarat.roads puts each road's next mark when the next coup of ``sequence`` is ``result``."""
    before, after = build_roadmap(parse_sequence(sequence)), build_roadmap(parse_sequence(sequence + result))
    spots = {"bead_plate": after["bead_plate"][-1], "big_road": after["big_road"]["cells"][-1]}
    for name in DERIVED:
        if len(after[name]["cells"]) > len(before[name]["cells"]):
            spots[name] = after[name]["cells"][-1]
    return {name: (cell["col"], cell["row"]) for name, cell in spots.items()}


def streaky_sequence(rng: random.Random) -> str:
    """Coups that often repeat the last result: long streaks, dragon tails on the roads."""
    coups = [rng.choice("BPT")]
    for _ in range(rng.randrange(0, 80)):
        coups.append(coups[-1] if coups[-1] != "T" and rng.random() < 0.6 else rng.choice("BBPPT"))
    return "".join(coups)


def assert_nothing_sticks_out(page: Page, container: str, *, of_itself: bool = False) -> None:
    """Nothing in ``container`` reaches past the viewport's sides, or past the container's own
    (``of_itself``); a road's board scrolls inside its box, and a phone's strip of roads inside the panel."""
    outside = page.evaluate(
        """([container, ofItself]) => {
            const box = document.querySelector(container).getBoundingClientRect();
            const [left, right] = ofItself ? [box.left, box.right] : [0, document.documentElement.clientWidth];
            return [...document.querySelectorAll(`${container} *`)]
                .filter((element) => !element.closest(".road-scroller > *, .roads-panel .road:not(.road--big-road)"))
                .filter((element) => {
                    const { width, left: start, right: end } = element.getBoundingClientRect();
                    return width && (start < left - 0.5 || end > right + 0.5);
                })
                .map((element) => element.outerHTML.slice(0, 80));
        }""",
        [container, of_itself],
    )
    assert not outside, outside


def test_roads_are_named_legible_and_as_the_rules_say(open_roads):
    page = open_roads(DESKTOP)
    panel = page.locator(".roads-panel")
    for name, title in ROAD_NAMES.items():
        expect(panel.locator(f"{block(name)} .road-name")).to_have_text(title)
        expect(panel.get_by_role("group", name=title, exact=True)).to_be_visible()
        expect(panel.locator(f"{block(name)} svg")).to_have_attribute("aria-label", re.compile(f"^{title}: "))

    for name in ("big_road", "bead_plate"):
        assert cell_size(panel.locator(f"{block(name)} svg")) >= 20
    for name in DERIVED:
        assert cell_size(panel.locator(f"{block(name)} svg")) >= 14
        marks = panel.locator(f"{block(name)} svg > :not(.road-grid)")
        expect(marks).to_have_count(len(ROADMAP[name]["cells"]))
        assert marks.first.bounding_box()["width"] >= 8

    # The bead plate spells the results; pair dots are big enough to see.
    letters = panel.locator(f"{block('bead_plate')} .road-bead-letter").all_text_contents()
    assert "".join(letters) == "".join(char for char in SEQUENCE if char in "BPT")
    stats = ROADMAP["stats"]
    for name in ("bead_plate", "big_road"):
        for pair in ("banker", "player"):
            expect(panel.locator(f"{block(name)} .road-pair--{pair}")).to_have_count(stats[f"{pair}_pair"])
    for dot in panel.locator(".road-pair").all():
        box = dot.bounding_box()
        assert box["width"] >= 7 and box["height"] >= 7

    # Statistics: counts and their share of the coups.
    for key, label in [("banker", "Banker"), ("player", "Player"), ("tie", "Tie"), ("banker_pair", "B pair")]:
        stat = panel.locator(f".stat--{key.replace('_', '-')}")
        expect(stat.locator("dt")).to_have_text(label)
        expect(stat.locator(".stat-count")).to_have_text(str(stats[key]))
        expect(stat.locator(".stat-percent")).to_have_text(f"{round(stats[key] * 100 / stats['coups'])}%")
    expect(panel.locator(".stat--coups dd")).to_have_text(str(stats["coups"]))
    screenshot(page, "roads-desktop")
    panel.screenshot(path="var/screenshots/roads-panel-desktop.png")


@pytest.mark.parametrize(("button", "result"), [("Banker?", "B"), ("Player?", "P")])
def test_ask_roads_blink_the_next_mark_of_every_road(open_roads, button, result):
    page = open_roads(DESKTOP)
    panel = page.locator(".roads-panel")
    expected = next_spots(result)
    assert set(expected) == set(ROAD_NAMES)  # the sequence gives every road a next mark

    panel.get_by_role("button", name=button, exact=True).click()
    expect(panel.locator(".road-ask")).to_have_count(5)
    assert ask_marks(panel) == expected
    for name in ROAD_NAMES:  # each at its spot, in view
        mark = panel.locator(f"{block(name)} .road-ask").bounding_box()
        scroller = panel.locator(f"{block(name)} .road-scroller").bounding_box()
        assert scroller["x"] - 1 <= mark["x"] and mark["x"] + mark["width"] <= scroller["x"] + scroller["width"] + 1
    colours = {name: ROADMAP["ask"][{"B": "banker", "P": "player"}[result]][name] for name in DERIVED}
    side = "Banker" if result == "B" else "Player"
    expect(panel.locator("[data-ask-status]")).to_have_text(
        f"If {side} wins next: Big Eye Boy {colours['big_eye_road']}, "
        f"Small Road {colours['small_road']}, Cockroach Pig {colours['cockroach_road']}"
    )
    expect(panel.locator(f"{block('bead_plate')} .road-ask .road-bead-letter")).to_have_text(result)
    if result == "B":
        screenshot(page, "roads-ask-desktop")
        panel.screenshot(path="var/screenshots/roads-ask-panel-desktop.png")
    expect(panel.locator(".road-ask")).to_have_count(0, timeout=5_000)  # gone after the blinking


def test_the_ask_roads_put_each_next_mark_where_the_roads_would(open_roads):
    """roads.js finds the next spots itself: checked against baccarat.roads on many shoes."""
    page = open_roads(DESKTOP)
    rng = random.Random(19)
    sequences = ["", "TT", *(streaky_sequence(rng) for _ in range(300))]
    found = page.evaluate(
        """async (roadmaps) => {
            const { askSpots } = await import("/static/js/roads.js");
            const cells = (spots) => Object.fromEntries(
                Object.entries(spots).map(([name, spot]) => [name, [spot.col, spot.row]]),
            );
            return roadmaps.map((roadmap) => [cells(askSpots(roadmap, "banker")), cells(askSpots(roadmap, "player"))]);
        }""",
        [build_roadmap(parse_sequence(sequence)) for sequence in sequences],
    )
    for sequence, (banker, player) in zip(sequences, found, strict=True):
        expected = [next_spots(result, sequence) for result in "BP"]
        assert [{name: tuple(cell) for name, cell in spots.items()} for spots in (banker, player)] == expected, sequence


def test_the_enlarged_view_opens_and_closes_by_keyboard(open_roads):
    page = open_roads(DESKTOP)
    enlarge = page.get_by_role("button", name="Enlarge roads")
    enlarge.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name=re.compile("^Roads"))
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="Close")).to_be_focused()
    for name, title in ROAD_NAMES.items():
        expect(dialog.locator(f"{block(name)} .road-name")).to_have_text(title)
    panel = page.locator(".roads-panel")
    for name in ROAD_NAMES:
        enlarged, small = dialog.locator(f"{block(name)} svg"), panel.locator(f"{block(name)} svg")
        assert cell_size(enlarged) > cell_size(small)
    expect(dialog.locator(".stat--tie .stat-percent")).to_have_text(
        f"{round(ROADMAP['stats']['tie'] * 100 / ROADMAP['stats']['coups'])}%"
    )
    dialog.get_by_role("button", name="Banker?", exact=True).press("Enter")
    expect(dialog.locator(".road-ask")).to_have_count(5)
    assert ask_marks(dialog) == next_spots("B")
    page.wait_for_timeout(300)
    screenshot(page, "roads-enlarged-desktop")

    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(enlarge).to_be_focused()

    # Space opens it too; the Close button closes it.
    page.keyboard.press("Space")
    expect(dialog).to_be_visible()
    page.keyboard.press("Enter")  # the Close button has the focus
    expect(dialog).to_be_hidden()

    # The toolbar's Roads opens it (the panel is below the fold on a phone).
    page.get_by_role("toolbar", name="Table tools").get_by_role("button", name="Roads").click()
    expect(dialog).to_be_visible()


@pytest.mark.parametrize(
    ("viewport", "name"), [(PHONE_PORTRAIT, "phone-portrait"), (PHONE_LANDSCAPE, "phone-landscape")]
)
def test_phones_see_every_road_without_sideways_scrolling(open_roads, viewport, name):
    """On a phone the panel is a strip, the Big Road, the other roads a swipe away; every road is one tap away, in
    the Roads dialog."""
    page = open_roads(viewport, phone=True)
    panel = page.locator(".roads-panel")
    assert_nothing_sticks_out(page, ".table-app")
    panel_box = panel.bounding_box()
    assert panel_box["x"] >= 0 and panel_box["x"] + panel_box["width"] <= viewport["width"]
    expect(panel.locator(f"{block('big_road')} .road-name")).to_have_text("Big Road")
    assert cell_size(panel.locator(f"{block('big_road')} svg")) >= 14
    scroller = panel.locator(f"{block('big_road')} .road-scroller").bounding_box()
    assert scroller["x"] + scroller["width"] <= panel_box["x"] + panel_box["width"]
    for name_ in ROAD_NAMES.keys() - {"big_road"}:  # beyond the strip's right edge until swiped in
        assert panel.locator(block(name_)).bounding_box()["x"] >= scroller["x"] + scroller["width"]
    expect(panel.locator("[data-stats]")).to_be_hidden()
    screenshot(page, f"roads-{name}")
    panel.scroll_into_view_if_needed()
    panel.screenshot(path=f"var/screenshots/roads-panel-{name}.png")

    page.get_by_role("toolbar", name="Table tools").get_by_role("button", name="Roads").tap()
    dialog = page.get_by_role("dialog", name=re.compile("^Roads"))
    expect(dialog).to_be_visible()
    assert dialog.bounding_box()["width"] <= viewport["width"]
    assert_nothing_sticks_out(page, ".roads-dialog", of_itself=True)
    for name_, title in ROAD_NAMES.items():
        expect(dialog.locator(f"{block(name_)} .road-name")).to_have_text(title)
        assert cell_size(dialog.locator(f"{block(name_)} svg")) >= 16
    for dot in dialog.locator(".road-pair").all():
        assert dot.bounding_box()["width"] >= 7
    page.screenshot(path=f"var/screenshots/roads-enlarged-{name}.png")
    dialog.get_by_role("button", name="Close").tap()
    expect(dialog).to_be_hidden()
