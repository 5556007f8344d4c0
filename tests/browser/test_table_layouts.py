"""The table page on one screen (issue 19): on a desktop (1440 x 900), a phone held upright (390 x 844) and a
phone on its side (844 x 390), a player betting on pb1 sees the cards, the timer and the phase, the betting board
and the chips without scrolling, before and after putting chips down; the roads are docked (on a phone a strip, the
Big Road, the others a swipe away) and the chat a drawer behind a button (issue 32). No console error (a CSP
violation is one)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import SCREENSHOTS, open_table, players_created, screenshot, wait_for_betting
from tests.browser.test_table_page import chip

pytestmark = pytest.mark.browser

SIZES = {
    "desktop": {"viewport": {"width": 1440, "height": 900}},
    "phone-portrait": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "phone-landscape": {"viewport": {"width": 844, "height": 390}, "is_mobile": True, "has_touch": True},
}

# What a betting player must see at once: the coup (both hands' cards), the timer, the phase, every main area
# and the chip tray.
ON_SCREEN = {
    "the Player hand's cards": '[data-cards="player"]',
    "the Banker hand's cards": '[data-cards="banker"]',
    "the timer": "[data-timer]",
    "the phase": ".phase[data-phase]",
    "the Player area": '[data-bet="player"]',
    "the Banker area": '[data-bet="banker"]',
    "the Tie area": '[data-bet="tie"]',
    "the chips": ".chips",
    "Confirm": '[data-action="confirm"]',
}


LAYOUT_PLAYER = "gina"


@pytest.fixture
def sized_page(browser: Browser, server) -> Iterator:
    """``sized_page(size)``: a player's pb1 table page in a browser of that size, and its console errors. The
    player is the test's own (its bets must not move the demo players' balances other tests count on)."""
    players_created(server, LAYOUT_PLAYER)
    contexts = []

    def make(size: str) -> tuple[Page, list[str]]:
        context = browser.new_context(base_url=server.url, **SIZES[size])
        contexts.append(context)
        errors: list[str] = []  # from the first page load on: a CSP violation is a console error
        context.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        context.on("weberror", lambda error: errors.append(str(error.error)))
        return open_table(context, LAYOUT_PLAYER, "pb1"), errors

    yield make
    for context in contexts:
        context.close()


def off_screen(page: Page) -> list[str]:
    """What of ON_SCREEN is not wholly inside the viewport, with the page scrolled to its top."""
    page.evaluate("window.scrollTo(0, 0)")
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    outside = []
    for name, selector in ON_SCREEN.items():
        box = page.locator(selector).bounding_box()
        inside = box and box["y"] >= 0 and box["y"] + box["height"] <= height
        if not (inside and box["x"] >= 0 and box["x"] + box["width"] <= width):
            outside.append(f"{name}: {box}")
    return outside


@pytest.mark.parametrize("size", list(SIZES))
def test_a_betting_player_sees_the_whole_table_on_one_screen(sized_page, size):
    page, errors = sized_page(size)
    wait_for_betting(page, 7)
    expect(page.locator("[data-timer]")).to_be_visible()
    screenshot(page, f"layout-betting-{size}")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    assert off_screen(page) == []

    # Chips on the board (a stack on Player, one on the player pair), confirmed: the board grows by the stacks,
    # the chips stay on the screen.
    for value, bet_type in ((1, "player"), (1, "player"), (5, "player"), (1, "player_pair")):
        chip(page, value).click()
        page.locator(f'[data-bet="{bet_type}"]').click()
    page.get_by_role("button", name="Confirm", exact=True).click()
    expect(page.locator("[data-bet-message]")).to_contain_text("Bets accepted")
    expect(page.locator('[data-bet="player"] .chip-stack')).to_have_attribute("data-chips", "3")
    screenshot(page, f"layout-bets-placed-{size}")
    assert off_screen(page) == []

    chat_button = page.get_by_role("toolbar", name="Table tools").get_by_role("button", name=re.compile("^Chat"))
    chat_log, message = page.locator("[data-chat-log]"), page.get_by_label("Message to the table")
    big_road, bead_plate = page.locator(".roads-panel .road--big-road"), page.locator(".roads-panel .road--bead-plate")
    if size == "desktop":  # the five roads docked in the side column
        expect(bead_plate).to_be_in_viewport(ratio=1)
    else:  # a phone: the roads a strip (the Big Road; the others a swipe away)
        expect(big_road).to_be_in_viewport(ratio=1)
        expect(bead_plate).not_to_be_in_viewport()
    # The chat a drawer, collapsed to its button, opened over the page.
    expect(chat_log).to_be_hidden()
    expect(chat_button).to_have_attribute("aria-expanded", "false")
    chat_button.focus()
    page.keyboard.press("Enter")
    expect(chat_button).to_have_attribute("aria-expanded", "true")
    expect(chat_log).to_be_visible()
    expect(message).to_be_focused()
    box = page.locator("[data-chat]").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]
    message.fill(f"hello from {size}")
    page.keyboard.press("Enter")
    expect(chat_log.locator("li").last).to_contain_text(f"hello from {size}")
    page.screenshot(path=SCREENSHOTS / f"layout-chat-{size}.png")
    page.keyboard.press("Escape")
    expect(chat_log).to_be_hidden()
    expect(chat_button).to_be_focused()
    expect(chat_button).to_have_attribute("aria-expanded", "false")
    chat_button.click()
    page.get_by_role("button", name="Close the chat").click()
    expect(chat_log).to_be_hidden()
    assert errors == []
