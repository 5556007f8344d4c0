"""Several tables on one screen (issue 32, docs/ui.md, Several tables): at 1440 x 900, 390 x 844 and 844 x 390, in
English and in Chinese, a player asks for pb1, nc2, live4 (closed) and rng5 (dealt on demand): rng5 is set aside
saying why, live4 is a tile saying it is closed, and a bet on pb1's tile is accepted, dealt and settled. In every
state (chips down, the bet confirmed, dealing, the result) the page is no taller and no wider than the window and
the tiles in view keep their essentials inside it: the timer (while it runs), the Player, Tie and Banker areas, the
chips and Confirm. The Chinese page has no English left in it. No console error, no CSP violation.

One test per size: an English and a Chinese player side by side, through one coup."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import no_console_errors, players_created, screenshot
from tests.browser.test_languages import LANGUAGES, sign_in_anywhere
from tests.browser.test_one_screen import BOARD_ESSENTIAL
from tests.browser.test_table_layouts import SIZES

pytestmark = pytest.mark.browser

PLAYERS = {"en": "tiles_en", "zh": "tiles_zh"}
ASKED = "/multi/?tables=pb1,nc2,live4,rng5"
CLOSED = {"en": "The table is closed", "zh": "牌桌已关闭"}
SET_ASIDE = {"en": "Deal Your Own 5 deals on demand: play it on its own page.", "zh": "Deal Your Own 5 为按需发牌"}
# Every 50 ms, in the page: the state pb1's tile shows, the page's size and the essentials of the tiles in view
# (those whose middle is inside the window: a phone's other tiles are a swipe away) outside the window, the worst
# seen per state.
STATES_WATCHED = """(essential) => {
    const tile = document.querySelector('[data-tile="pb1"]');
    const state = () => {
        const phase = tile.dataset.phase;
        if (phase === "result") return "result";
        if (phase === "dealing" && tile.querySelector("[data-cards] .card")) return "dealing";
        if (phase !== "betting") return null;
        if (!tile.querySelector('[data-action="confirm"]').disabled) return "chips";
        if (tile.querySelector("[data-bet-message]").dataset.kind === "ok") return "confirmed";
        return null;
    };
    const inView = (element) => {
        const box = element.getBoundingClientRect();
        const middle = box.left + box.width / 2;
        return middle >= 0 && middle <= innerWidth;
    };
    window.puntoStates = {};
    setInterval(() => {
        const now = state();
        if (!now) return;
        const outside = [];
        for (const each of document.querySelectorAll("[data-tile]")) {
            if (!inView(each)) continue;
            for (const [name, selector] of Object.entries(essential)) {
                const element = each.querySelector(selector);
                const where = `${each.dataset.tile} ${name}`;
                if (!element) { outside.push(`${where}: missing`); continue; }
                if (!element.checkVisibility()) { if (name !== "timer") outside.push(`${where}: hidden`); continue; }
                const box = element.getBoundingClientRect();
                if (box.top < 0 || box.left < 0 || box.bottom > innerHeight + 0.5 || box.right > innerWidth + 0.5)
                    outside.push(`${where}: ${box.top}..${box.bottom} x ${box.left}..${box.right}`);
            }
        }
        const seen = window.puntoStates[now] ?? {height: 0, width: 0, outside: []};
        window.puntoStates[now] = {
            height: Math.max(seen.height, document.documentElement.scrollHeight),
            width: Math.max(seen.width, document.documentElement.scrollWidth),
            outside: [...new Set([...seen.outside, ...outside])],
        };
    }, 50);
}"""
# pb1's tile says the player's outcome, its animation in over.
OUTCOME_SHOWN = """() => {
    const outcome = document.querySelector('[data-tile="pb1"] [data-my-result]');
    const running = outcome.getAnimations({subtree: true}).some((each) => each.playState === "running");
    return outcome.childElementCount > 0 && !running;
}"""
# The Chinese page's text and labels with a Latin word in them once the data (the tables' names, the player's), the
# brand and the currency's code are taken out.
LATIN_LEFT = """(names) => {
    const left = [];
    const strip = (text) => names.reduce((rest, name) => rest.replaceAll(name, ""), text);
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (parent.closest("script, style, [hidden], .language-choice") || !parent.checkVisibility()) continue;
        if (/[A-Za-z]{2,}/.test(strip(node.textContent))) left.push(node.textContent.trim());
    }
    for (const element of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
        for (const name of ["aria-label", "title", "placeholder"]) {
            const value = element.getAttribute(name);
            if (value && /[A-Za-z]{2,}/.test(strip(value))) left.push(`${name}=${value}`);
        }
    }
    return left;
}"""


def reached(pages: dict[str, Page], size: str, state: str) -> None:
    """Each page reaches ``state`` (its screenshot saved: multi-<size>-<lang>-<state>.png) and fitted its window
    all the while."""
    for lang, page in pages.items():
        page.wait_for_function("(state) => state in window.puntoStates", arg=state, timeout=40_000)
        if state == "result":  # the player's own outcome shown whole in the screenshot
            page.wait_for_function(OUTCOME_SHOWN, timeout=10_000)
        screenshot(page, f"multi-{size}-{lang}-{state}")
    for lang, page in pages.items():
        found = page.evaluate("(state) => window.puntoStates[state]", state)
        height, width = page.viewport_size["height"], page.viewport_size["width"]
        print(f"multi {size} {lang} {state}: scrollHeight {found['height']} / {height}")
        assert found["height"] <= height, f"{lang} {state}: the page is {found['height']} px tall"
        assert found["width"] <= width, f"{lang} {state}: the page is {found['width']} px wide"
        assert found["outside"] == [], f"{lang} {state}: outside the window: {found['outside']}"


@pytest.mark.parametrize("size", list(SIZES))
def test_a_bet_on_a_tile_dealt_and_settled_on_one_screen_in_both_languages(browser: Browser, server, size):
    players_created(server, *PLAYERS.values())
    pages: dict[str, Page] = {}
    try:
        for lang, locale in LANGUAGES.items():
            context = browser.new_context(base_url=server.url, locale=locale, **SIZES[size])
            pages[lang] = page = context.new_page()
            sign_in_anywhere(page, PLAYERS[lang], ASKED)
            expect(page.locator("[data-connection]")).to_have_attribute("data-state", "live")
            expect(page.locator(".multi-set-aside")).to_contain_text(SET_ASIDE[lang])
            expect(page.locator('[data-tile="live4"] [data-phase]')).to_have_text(CLOSED[lang])
            assert page.locator("[data-tile]").evaluate_all("(tiles) => tiles.map((t) => t.dataset.tile)") == [
                "pb1",
                "nc2",
                "live4",
            ]
            page.evaluate(STATES_WATCHED, BOARD_ESSENTIAL)

        data = ["Deal Your Own 5", "EUR", PLAYERS["zh"], "Punto"]  # rng5's name, the currency, the player, the brand
        names = [*pages["en"].locator(".multi-name").all_inner_texts(), *data]
        for page in pages.values():  # a betting window with time left for both
            page.wait_for_function(
                """() => {
                    const tile = document.querySelector('[data-tile="pb1"]');
                    const left = Number(tile.querySelector("[data-timer]").dataset.secondsLeft);
                    return tile.dataset.phase === "betting" && left >= 6;
                }""",
                timeout=40_000,
            )
            page.evaluate("window.puntoStates = {}")  # from this coup on: not the last one's result
        for page in pages.values():
            pb1 = page.locator('[data-tile="pb1"]')
            pb1.locator('[data-chip="5"]').click()
            pb1.locator('[data-bet="banker"]').click()
        reached(pages, size, "chips")
        for page in pages.values():
            pb1 = page.locator('[data-tile="pb1"]')
            pb1.locator('[data-action="confirm"]').click()
            expect(pb1.locator("[data-bet-message]")).to_have_attribute("data-kind", "ok")
        for state in ("confirmed", "dealing", "result"):
            reached(pages, size, state)
        assert pages["zh"].evaluate(LATIN_LEFT, names) == []

        if size != "desktop":  # a phone: the closed table's tile a tap away, saying so
            for lang, page in pages.items():
                page.locator(".multi-nav").get_by_role("link", name="Live Dealer 4").click()
                expect(page.locator('[data-tile="live4"]')).to_be_in_viewport(ratio=0.9)
                screenshot(page, f"multi-{size}-{lang}-closed")
        for page in pages.values():
            assert no_console_errors(page) == []
    finally:
        for page in pages.values():
            page.context.close()
