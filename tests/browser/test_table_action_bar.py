"""The table page's action bar (issue 32): on a desktop (1440 x 900), a phone held upright (390 x 844) and a phone
on its side (844 x 390), Confirm, Undo, Remove, Rebet, Rebet x2 and the chip rack stay where they are, inside the
screen and clear of the betting areas, whatever comes and goes around them: chips on the board, the automatic
sending's countdown (shown over the timer, not as a row of its own) and the bet message. A disabled Confirm does not
look like the enabled one; on phones every target is a finger's 44 px. No console error (a CSP violation is one)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import no_console_errors, open_table, players_created, screenshot, wait_for_betting
from tests.browser.test_table_layouts import SIZES
from tests.browser.test_table_page import chip
from tests.browser.test_table_win_and_totals import boxes_intersect

pytestmark = pytest.mark.browser

PLAYER = "ivy"
ACTIONS = ["undo", "remove", "rebet", "rebet-double", "confirm"]
BAR = [f'[data-action="{action}"]' for action in ACTIONS] + [".chips"]
# A finger's targets on a phone: the bar's, the tools', the chips' and the roads' questions.
TARGETS = ["[data-action]", ".tools .tool", "[data-chip]", ".roads-panel [data-ask]"]
MIN_TARGET = 44

# The text's colour of a button and the first opaque background behind it.
COLOURS = """(button) => {
    const rgba = (colour) => colour.match(/[\\d.]+/g).map(Number);
    let behind = button;
    while (rgba(getComputedStyle(behind).backgroundColor)[3] !== undefined
           && rgba(getComputedStyle(behind).backgroundColor)[3] < 1) behind = behind.parentElement;
    return [rgba(getComputedStyle(button).color), rgba(getComputedStyle(behind).backgroundColor)];
}"""
LOOK = """(button) => {
    const style = getComputedStyle(button);
    return [style.backgroundImage, style.backgroundColor, style.color, style.borderStyle, style.borderColor];
}"""


def contrast(text: list[float], background: list[float]) -> float:
    def luminance(rgb: list[float]) -> float:
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (v / 255 for v in rgb[:3])]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    lighter, darker = sorted((luminance(text), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


@pytest.fixture
def table_at(browser: Browser, server) -> Iterator:
    """``table_at(size)``: the test's player at pb1 in a browser of that size (their own: the demo players'
    balances are what other tests count on)."""
    players_created(server, PLAYER)
    contexts = []

    def make(size: str) -> Page:
        context = browser.new_context(base_url=server.url, **SIZES[size])
        contexts.append(context)
        return open_table(context, PLAYER, "pb1")

    yield make
    for context in contexts:
        context.close()


def bar_boxes(page: Page) -> dict[str, dict]:
    page.evaluate("window.scrollTo(0, 0)")
    return {selector: page.locator(selector).bounding_box() for selector in BAR}


def moved(before: dict[str, dict], after: dict[str, dict]) -> list[str]:
    """What of the bar moved or changed size by a pixel or more (a fraction is the layout's rounding)."""
    return [
        f"{name}: {before[name]} -> {after[name]}"
        for name in before
        if any(abs(before[name][edge] - after[name][edge]) >= 1 for edge in ("x", "y", "width", "height"))
    ]


def outside_the_screen(page: Page, boxes: dict[str, dict]) -> list[str]:
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    return [
        f"{name}: {box}"
        for name, box in boxes.items()
        if box["x"] < 0 or box["y"] < 0 or box["x"] + box["width"] > width or box["y"] + box["height"] > height
    ]


def covered_areas(page: Page, boxes: dict[str, dict]) -> list[str]:
    """The main betting areas (and the bet message) that a part of the bar lies over, at the page's top."""
    covered = []
    for selector in ('[data-bet="player"]', '[data-bet="tie"]', '[data-bet="banker"]', "[data-bet-message]"):
        area = page.locator(selector).bounding_box()
        covered += [f"{selector} under {name}" for name, box in boxes.items() if area and boxes_intersect(area, box)]
    return covered


def small_targets(page: Page) -> list[str]:
    small = []
    for selector in TARGETS:
        for target in page.locator(selector).all():
            box = target.bounding_box() if target.is_visible() else None
            if box and (box["width"] < MIN_TARGET or box["height"] < MIN_TARGET):
                small.append(f"{target.inner_text() or target.get_attribute('aria-label')}: {box}")
    return small


@pytest.mark.parametrize("size", list(SIZES))
def test_the_action_bar_stays_put_inside_the_screen(table_at, size):
    page = table_at(size)
    confirm = page.locator('[data-action="confirm"]')
    notice = page.locator("[data-auto-send]")
    wait_for_betting(page, 7)
    chip(page, 1).click()
    page.wait_for_timeout(300)  # the chosen chip's lift
    empty = bar_boxes(page)
    assert outside_the_screen(page, empty) == []
    assert covered_areas(page, empty) == []

    # A disabled Confirm is not the gold button, and its words stay legible.
    expect(confirm).to_be_disabled()
    disabled_look = confirm.evaluate(LOOK)
    text, background = confirm.evaluate(COLOURS)
    assert contrast(text, background) >= 4.5, (text, background)
    screenshot(page, f"action-bar-{size}-disabled")

    # Chips on the board, left unconfirmed: nothing of the bar moves, then the automatic sending's countdown comes
    # over the timer, and the bar still does not move.
    page.locator('[data-bet="player"]').click()
    page.locator('[data-bet="player_pair"]').click()
    expect(confirm).to_be_enabled()
    enabled_look = confirm.evaluate(LOOK)
    assert enabled_look[0] != disabled_look[0], "the same background"
    assert enabled_look[2] != disabled_look[2], "the same text colour"
    assert moved(empty, bar_boxes(page)) == []
    expect(notice).to_be_visible(timeout=10_000)
    assert moved(empty, bar_boxes(page)) == []
    timer, over_it = page.locator("[data-timer]").bounding_box(), notice.bounding_box()
    assert over_it["x"] <= timer["x"] and over_it["x"] + over_it["width"] >= timer["x"] + timer["width"]
    assert over_it["y"] <= timer["y"] and over_it["y"] + over_it["height"] >= timer["y"] + timer["height"]
    screenshot(page, f"action-bar-{size}-auto-send")

    # The chips are sent by themselves: the bet message comes in its own slot, the bar does not move. Which
    # message is not this test's (test_table_page's is): on a machine loaded enough, the answer is the refusal
    # of chips that reached the server after "no more bets", in the same slot.
    expect(page.locator("[data-bet-message]")).to_have_text(re.compile("^(Bets accepted|No more bets)"))
    assert moved(empty, bar_boxes(page)) == []
    assert covered_areas(page, empty) == []
    screenshot(page, f"action-bar-{size}-sent")

    if size != "desktop":
        assert small_targets(page) == []
    assert no_console_errors(page) == []


@pytest.mark.parametrize("size", ["desktop", "phone-portrait"])
def test_on_a_shorter_screen_the_bar_sticks_to_its_foot(table_at, size):
    """The browser's own bars take the screen's foot (a phone's), or the page is taller than the window: the bar
    sticks to the window's foot rather than go under it."""
    viewport = SIZES[size]["viewport"]
    page = table_at(size)
    page.set_viewport_size({"width": viewport["width"], "height": viewport["height"] - 120})
    assert outside_the_screen(page, bar_boxes(page)) == []
    screenshot(page, f"action-bar-{size}-shorter")
    assert no_console_errors(page) == []
