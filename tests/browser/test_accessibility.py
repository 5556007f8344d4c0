"""Accessibility (issue 19): axe-core's WCAG 2 A and AA rules on every player page at a desktop (1440 x 900), a
phone held upright (390 x 844) and a phone on its side (844 x 390); a whole bet by keyboard with a visible focus;
the betting timer and the result in live regions for screen readers.

axe-core comes bundled in the ``axe-playwright-python`` package (no download); it runs inside the page through
Playwright's ``evaluate``, which the pages' strict CSP does not govern."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import open_table, players_created, screenshot, sign_in, wait_for_betting
from tests.browser.test_table_page import RESULT, chip

pytestmark = pytest.mark.browser

SIZES = {
    "1440x900": {"viewport": {"width": 1440, "height": 900}},
    "390x844": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "844x390": {"viewport": {"width": 844, "height": 390}, "is_mobile": True, "has_touch": True},
}

# WCAG 2.0, 2.1 and 2.2, levels A and AA: no rule is left out.
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
    "resultTypes": ["violations"],
}
AXE = Axe()

SCAN_PLAYER = "ada"  # the tests' own players: the demo's balances are what other tests count on
KEYBOARD_PLAYER = "kim"


# axe cannot tell the contrast of text on a gradient (the pages' background, the felt, the betting areas, the gold
# buttons): it reports such text as "incomplete". So the contrast rule runs again twice with every gradient painted
# flat, once in its lightest colour stop and once in its darkest (over the element's own background colour): text
# must pass on both, that is on every part of its gradient.
FLATTEN_GRADIENTS = """(end) => {
    const channel = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    const rgba = (text) => {
        const [r, g, b, a = 1] = text.split(/[\\s,/]+/).filter(Boolean).map(Number);
        return [r, g, b, a];
    };
    const over = ([r, g, b, a], [R, G, B, A]) => {  // colour over a background colour
        const alpha = a + A * (1 - a);
        if (!alpha) return [0, 0, 0, 0];
        const mix = (top, bottom) => (top * a + bottom * A * (1 - a)) / alpha;
        return [mix(r, R), mix(g, G), mix(b, B), alpha];
    };
    window.__flattened = window.__flattened ?? [];
    for (const element of document.querySelectorAll("*")) {
        const style = getComputedStyle(element);
        if (!style.backgroundImage.includes("gradient(")) continue;
        const stops = [...style.backgroundImage.matchAll(/rgba?\\(([^)]+)\\)/g)].map((m) => rgba(m[1]));
        if (!stops.length) continue;
        const base = rgba(style.backgroundColor.replace(/^rgba?\\(|\\)$/g, ""));
        const flat = stops.map((stop) => over(stop, base)).sort((a, b) => luminance(a) - luminance(b));
        const [r, g, b, a] = end === "lightest" ? flat.at(-1) : flat[0];
        window.__flattened.push([element, element.getAttribute("style")]);
        element.style.setProperty("background-image", "none", "important");
        element.style.setProperty("background-color", `rgba(${r}, ${g}, ${b}, ${a})`, "important");
    }
}"""
UNFLATTEN_GRADIENTS = """() => {
    for (const [element, style] of (window.__flattened ?? []).reverse()) {
        if (style === null) element.removeAttribute("style"); else element.setAttribute("style", style);
    }
    window.__flattened = [];
}"""
CONTRAST_ONLY = {"runOnly": {"type": "rule", "values": ["color-contrast"]}, "resultTypes": ["violations"]}


# axe leaves out text too short to judge, as a chip's figure: the chips' figures against their colours.
CHIP_FIGURES = """() => {
    const channel = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    const luminance = (rgb) => {
        const [r, g, b] = rgb.match(/[\\d.]+/g).map(Number);
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const probe = document.createElement("span");
    document.body.append(probe);
    const low = [];
    for (const chip of document.querySelectorAll(".chips [data-chip]")) {
        const style = getComputedStyle(chip);
        probe.style.color = style.getPropertyValue("--chip");
        const [figure, face] = [luminance(style.color), luminance(getComputedStyle(probe).color)];
        const ratio = (Math.max(figure, face) + 0.05) / (Math.min(figure, face) + 0.05);
        const what = `${style.color} on ${getComputedStyle(probe).color}`;
        if (ratio < 4.5) low.push(`chip ${chip.dataset.chip}: ${what}, ${ratio.toFixed(2)}:1`);
    }
    probe.remove();
    return low;
}"""


def report(found: list[dict], where: str) -> list[str]:
    """One line per rule (id, impact, what it asks), then one per element it found (its selector, what is wrong)."""
    lines = []
    for violation in found:
        lines.append(f"{where}: {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"]:
            target = " >>> ".join(t if isinstance(t, str) else " ".join(t) for t in node["target"])
            why = [check["message"] for check in node["any"] + node["all"] + node["none"]]
            lines.append(f"    {target}  {' '.join(why)}")
    return lines


def violations(page: Page, where: str) -> list[str]:
    """axe's violations of WCAG 2 A and AA on the page as it is now, then of contrast on its gradients' ends."""
    lines = report(AXE.run(page, options=AXE_OPTIONS).response["violations"], where)
    for end in ("lightest", "darkest"):
        page.evaluate(FLATTEN_GRADIENTS, end)
        try:
            found = AXE.run(page, options=CONTRAST_ONLY).response["violations"]
        finally:
            page.evaluate(UNFLATTEN_GRADIENTS)
        lines += report(found, f"{where}, gradients at their {end}")
    return lines


@pytest.fixture
def sized_context(browser: Browser, server) -> Iterator:
    contexts: list[BrowserContext] = []

    def make(size: str) -> BrowserContext:
        context = browser.new_context(base_url=server.url, **SIZES[size])
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_axe_finds_no_wcag_violation_on_the_player_pages(server, sized_context, size):
    players_created(server, SCAN_PLAYER)
    page = sized_context(size).new_page()
    found: list[str] = []

    page.goto("/")
    expect(page.locator("[data-status]").first).not_to_have_text("Connecting…")
    found += violations(page, "lobby (signed out)")
    page.goto("/accounts/login/")
    found += violations(page, "sign-in")
    page.goto("/tables/no-such-table/")
    found += violations(page, "404")

    sign_in(page, SCAN_PLAYER)
    expect(page.locator("[data-status]").first).not_to_have_text("Connecting…")
    found += violations(page, "lobby")
    page.goto("/account/")
    found += violations(page, "account")

    page.goto("/tables/pb1/")
    expect(page.locator("[data-connection]")).to_have_text("Live")
    wait_for_betting(page, 5)
    found += violations(page, "table, betting")
    found += [f"table: contrast (serious): {line}" for line in page.evaluate(CHIP_FIGURES)]
    chip(page, 5).click()
    for bet_type in ("banker", "banker", "player_pair"):
        page.locator(f'[data-bet="{bet_type}"]').click()
    expect(page.locator('[data-bet="banker"] .spot-stake')).to_be_visible()
    found += violations(page, "table, chips on the board")

    page.locator("[data-roads-enlarge]:visible").first.click()
    roads = page.get_by_role("dialog", name=re.compile("^Roads"))
    expect(roads).to_be_visible()
    found += violations(page, "table, Roads dialog")
    screenshot(page, f"a11y-roads-{size}")
    roads.get_by_role("button", name="Close", exact=True).click()

    page.get_by_role("button", name="History", exact=True).click()
    history = page.get_by_role("dialog", name="Game history")
    expect(history.locator(".history-section").first).to_be_visible()
    found += violations(page, "table, History dialog")
    screenshot(page, f"a11y-history-{size}")
    history.get_by_role("button", name="Close", exact=True).click()

    page.get_by_role("button", name="Limits", exact=True).click()
    expect(page.get_by_role("dialog", name="Limits")).to_be_visible()
    found += violations(page, "table, Limits dialog")

    assert not found, "axe found WCAG violations:\n" + "\n".join(found)


FOCUS_STYLE = """() => {
    const element = document.activeElement;
    const look = () => {
        const style = getComputedStyle(element);
        return {
            outlineStyle: style.outlineStyle,
            outlineWidth: parseFloat(style.outlineWidth),
            outlineColor: style.outlineColor,
            boxShadow: style.boxShadow,
        };
    };
    const focused = look();
    element.blur();
    const unfocused = look();
    element.focus();
    const stillFocused = document.activeElement === element;
    return {html: element.outerHTML.slice(0, 100), focused, unfocused, stillFocused};
}"""


def assert_focus_visible(page: Page) -> None:
    """The focused element shows it: a solid outline of 2 px or more in a colour (the site's: gold, white on the
    chips), which it has not when not focused; or else a box-shadow that only the focus gives it."""
    look = page.evaluate(FOCUS_STYLE)
    focused, unfocused = look["focused"], look["unfocused"]
    assert look["stillFocused"], look
    outlined = focused["outlineStyle"] not in ("none", "hidden") and focused["outlineWidth"] >= 2
    outlined = outlined and focused["outlineColor"] not in ("transparent", "rgba(0, 0, 0, 0)")
    outline_is_focus = outlined and (unfocused["outlineStyle"], unfocused["outlineColor"]) != (
        focused["outlineStyle"],
        focused["outlineColor"],
    )
    ring_is_focus = focused["boxShadow"] not in ("none", unfocused["boxShadow"])
    assert outline_is_focus or ring_is_focus, look


def tab_to(page: Page, selector: str, *, backwards: bool = False, limit: int = 60) -> int:
    """Press Tab (Shift+Tab backwards) until the focus is on the selector; how many presses."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
        if page.evaluate("selector => document.activeElement.matches(selector)", selector):
            return presses
    raise AssertionError(f"{selector} not reached by {limit} presses of Tab")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_whole_bet_by_keyboard_with_the_focus_always_visible(server, sized_context, size):
    players_created(server, KEYBOARD_PLAYER)
    page = open_table(sized_context(size), KEYBOARD_PLAYER, "pb1")
    timer_status = page.locator("[data-timer-status]")
    expect(timer_status).to_have_attribute("aria-live", "polite")
    result = page.locator("[data-result]")
    expect(result).to_have_attribute("role", "status")
    expect(result).to_have_attribute("aria-live", "polite")
    expect(page.locator("[data-my-result]")).to_have_attribute("aria-live", "polite")

    wait_for_betting(page, 6)
    expect(timer_status).to_have_text(re.compile(r"^\d+ seconds? left to bet$"))
    page.locator("body").focus()
    page.evaluate("document.activeElement.blur()")
    tab_to(page, "[data-chip]")
    assert_focus_visible(page)
    page.keyboard.press("ArrowRight")  # the chip after the selected 5: 10
    expect(chip(page, 10)).to_be_focused()
    page.keyboard.press("Space")
    expect(chip(page, 10)).to_have_attribute("aria-checked", "true")
    assert_focus_visible(page)
    screenshot(page, f"a11y-focus-{size}")

    tab_to(page, '[data-bet="banker"]', backwards=True)  # the board is before the chip tray
    assert_focus_visible(page)
    page.keyboard.press("Enter")
    banker = page.locator('[data-bet="banker"]')
    expect(banker.locator(".spot-stake-amount")).to_have_text("10")
    screenshot(page, f"a11y-focus-banker-{size}")
    tab_to(page, '[data-action="confirm"]')
    assert_focus_visible(page)
    page.keyboard.press("Enter")
    expect(page.locator("[data-bet-message]")).to_contain_text("Bets accepted")
    expect(page.locator("[data-balance]")).to_have_text(re.compile(r"^[\d,]+\.\d\d$"))

    # The result lands in its live region, and the player's own in theirs.
    expect(result).to_have_text(RESULT, timeout=25_000)
    expect(page.locator("[data-my-result]")).to_contain_text(re.compile("You won|No win|You broke even"))
    found = violations(page, "table, the result")  # the lit areas, the banner, the board locked
    screenshot(page, f"a11y-result-{size}")
    page.get_by_role("button", name="History", exact=True).click()  # with a round of the player's bets
    history = page.get_by_role("dialog", name="Game history")
    expect(history.locator(".history-round").first).to_be_visible()
    found += violations(page, "table, History dialog with a round bet")
    assert not found, "axe found WCAG violations:\n" + "\n".join(found)
