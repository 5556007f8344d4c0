"""The table page on one screen, video first (issue 32): at 1440 x 900, 390 x 844 and 844 x 390, in English and in
Chinese, the page is no taller than the window and the stage, the betting areas, the chips, Confirm, the timer
(while it runs) and the Big Road are inside it, in every state a player meets at an automatic table (betting with
chips down, the automatic sending's countdown, dealing, the result) and at a closed table; the page's load shifts
its layout by 0.1 or less (the Core Web Vitals' "good"). No console error (a CSP violation is one).

One test per size: an English and a Chinese player at pb1 side by side, through one coup; then each at live4
(closed)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import no_console_errors, players_created, screenshot, wait_for_betting
from tests.browser.test_languages import LANGUAGES, open_table
from tests.browser.test_table_layouts import SIZES

pytestmark = pytest.mark.browser

PLAYERS = {"en": "olive", "zh": "oscar"}
ESSENTIAL = {
    "stage": ".stage",
    "Player area": '[data-bet="player"]',
    "Tie area": '[data-bet="tie"]',
    "Banker area": '[data-bet="banker"]',
    "chips": ".chips",
    "Confirm": '[data-action="confirm"]',
    "timer": "[data-timer]",
    "Big Road": ".roads-panel .road--big-road",
}
MAX_LAYOUT_SHIFT = 0.1

# Run in every document before its scripts (not under the page's CSP): the layout shifts not caused by input, summed,
# and what moved.
LAYOUT_SHIFT_WATCHED = """
window.puntoLayoutShift = {total: 0, moved: []};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.puntoLayoutShift.total += entry.value;
    const moved = window.puntoLayoutShift.moved;
    for (const { node, previousRect: was, currentRect: now } of entry.sources)
      moved.push(`${node?.className || node?.nodeName} ${was.y}+${was.height} -> ${now.y}+${now.height}`);
  }
}).observe({ type: "layout-shift", buffered: true });
"""
# Every 50 ms, in the page: which state it shows, and the page's height and the essential elements outside the
# window in it, the worst seen per state (a state lasts seconds: a test could miss it; the page does not).
STATES_WATCHED = """(essential) => {
    const app = document.getElementById("table-app");
    const shown = (selector) => document.querySelector(selector)?.checkVisibility() ?? false;
    const state = () => {
        if (app.dataset.phase === "result") return "result";
        if (shown("[data-auto-send]")) return "auto-send";
        const confirm = document.querySelector('[data-action="confirm"]');
        if (app.dataset.phase === "betting" && !confirm.disabled) return "chips";
        if (app.dataset.phase === "dealing" && document.querySelector("[data-cards] .card")) return "dealing";
        if (app.dataset.phase === "idle" && app.dataset.table === "live4") return "closed";
        return null;
    };
    window.puntoStates = {};
    setInterval(() => {
        const now = state();
        if (!now) return;
        const outside = [];
        for (const [name, selector] of Object.entries(essential)) {
            const element = document.querySelector(selector);
            if (!element) { outside.push(`${name}: missing`); continue; }
            if (!element.checkVisibility()) { if (name !== "timer") outside.push(`${name}: hidden`); continue; }
            const box = element.getBoundingClientRect();
            if (box.top < 0 || box.left < 0 || box.bottom > innerHeight + 0.5 || box.right > innerWidth + 0.5)
                outside.push(`${name}: ${box.top}..${box.bottom} x ${box.left}..${box.right}`);
        }
        const seen = window.puntoStates[now] ?? {height: 0, width: 0, outside: []};
        window.puntoStates[now] = {
            height: Math.max(seen.height, document.documentElement.scrollHeight),
            width: Math.max(seen.width, document.documentElement.scrollWidth),
            outside: [...new Set([...seen.outside, ...outside])],
        };
    }, 50);
}"""


def watch(page: Page) -> None:
    page.evaluate(STATES_WATCHED, ESSENTIAL)


def reached(pages: dict[str, Page], size: str, state: str, timeout: float = 40_000) -> None:
    """Each page reaches ``state`` (its screenshot saved: one-screen-<size>-<lang>-<state>.png) and fitted its window
    all the while."""
    for lang, page in pages.items():
        page.wait_for_function("(state) => state in window.puntoStates", arg=state, timeout=timeout)
        screenshot(page, f"one-screen-{size}-{lang}-{state}")
    for lang, page in pages.items():
        found = page.evaluate("(state) => window.puntoStates[state]", state)
        height, width = page.viewport_size["height"], page.viewport_size["width"]
        print(f"{size} {lang} {state}: scrollHeight {found['height']} / {height}")
        assert found["height"] <= height, f"{lang} {state}: the page is {found['height']} px tall"
        assert found["width"] <= width, f"{lang} {state}: the page is {found['width']} px wide"
        assert found["outside"] == [], f"{lang} {state}: outside the window: {found['outside']}"


@pytest.mark.parametrize("size", list(SIZES))
def test_every_state_fits_one_screen_in_both_languages(browser: Browser, server, size):
    players_created(server, *PLAYERS.values())
    options = SIZES[size]
    pages: dict[str, Page] = {}
    try:
        for lang, locale in LANGUAGES.items():
            context = browser.new_context(base_url=server.url, locale=locale, **options)
            context.add_init_script(LAYOUT_SHIFT_WATCHED)
            pages[lang] = page = open_table(context, PLAYERS[lang], "pb1")
            page.wait_for_timeout(500)  # the roads and the scene drawn
            shift = page.evaluate("window.puntoLayoutShift")
            print(f"{size} {lang} load: layout shift {shift['total']:.3f}")
            assert shift["total"] <= MAX_LAYOUT_SHIFT, f"{lang}: the load shifted the layout: {shift}"
            watch(page)

        # Chips down and left unconfirmed, the automatic sending's countdown, the coup dealt, its result.
        for page in pages.values():
            wait_for_betting(page, 5)
            page.evaluate("window.puntoStates = {}")  # from this coup on: not the last one's result
        for page in pages.values():
            page.locator('[data-chip="5"]').click()
            page.locator('[data-bet="banker"]').click()
            page.locator('[data-bet="player_pair"]').click()
        for state in ("chips", "auto-send", "dealing", "result"):
            reached(pages, size, state)

        # A closed table.
        for page in pages.values():
            page.goto("/tables/live4/")
            expect(page.locator("[data-connection]")).to_have_attribute("data-state", "live")
            watch(page)
        reached(pages, size, "closed", 10_000)
        for page in pages.values():
            assert no_console_errors(page) == []
    finally:
        for page in pages.values():
            page.context.close()
