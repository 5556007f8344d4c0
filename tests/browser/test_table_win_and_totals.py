"""The table page's win moment and table totals (issue 19): three players on one coup of pb1, on a desktop
(1440 x 900), a phone held upright (390 x 844) and a phone on its side (844 x 390)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import (
    SCREENSHOTS,
    no_console_errors,
    open_table,
    players_created,
    screenshot,
    wait_for_betting,
)
from tests.browser.test_table_page import ROUND, chip

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1440, "height": 900}}
PHONE_PORTRAIT = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
PHONE_LANDSCAPE = {"viewport": {"width": 844, "height": 390}, "is_mobile": True, "has_touch": True}

# alice: Player 10 + Tie 1, carol: Player 5, bob: Banker 10. Whatever the result, somebody wins: each player's
# banner by the winner (a tie pays the tie 8:1 and pushes Player and Banker).
BANNERS = {
    "player": {"alice": "You won 9.00 EUR", "carol": "You won 5.00 EUR", "bob": "No win: you lost 10.00 EUR"},
    "banker": {
        "alice": "No win: you lost 11.00 EUR",
        "carol": "No win: you lost 5.00 EUR",
        "bob": "You won 9.50 EUR",
    },
    "tie": {
        "alice": "You won 8.00 EUR",
        "carol": "You broke even: 5.00 EUR back",
        "bob": "You broke even: 10.00 EUR back",
    },
}
OWN_AREA = {"alice": "player", "carol": "player", "bob": "banker"}
# Their accounts, this test's own: the demo players' balances are what the table page's test counts on.
USERNAMES = {name: f"totals_{name}" for name in OWN_AREA}


@pytest.fixture
def sized_context(browser: Browser, server_url: str) -> Iterator:
    contexts = []

    def make(options: dict):
        context = browser.new_context(base_url=server_url, **options)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


# Records, from now on, the bet areas whose chips the page showed being paid (``.spot-stake--paid``): a state that
# lasts a second and a half after the result's pause, which a loaded machine's screenshots can outlast.
PAID_RECORDER = """() => {
    window.paidSeen = [];
    new MutationObserver(() => {
        for (const stake of document.querySelectorAll(".spot-stake--paid")) {
            const area = stake.closest("[data-bet]").dataset.bet;
            if (!window.paidSeen.includes(area)) window.paidSeen.push(area);
        }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
}"""


# Records, from now on, each amount the banner's headline shows (a win counts up to its amount), when the result
# came and when the banner was cleared (the next window opened).
AMOUNTS_RECORDER = """() => {
    window.amountsSeen = [];
    const box = document.querySelector("[data-my-result]");
    const result = document.querySelector("[data-result]");
    new MutationObserver(() => {
        const amount = box.querySelector(".my-result-amount");
        if (amount && amount.textContent !== window.amountsSeen.at(-1)) window.amountsSeen.push(amount.textContent);
        if (!box.firstChild && window.amountsSeen.length && !window.clearedAt) window.clearedAt = performance.now();
    }).observe(box, { subtree: true, childList: true, characterData: true });
    new MutationObserver(() => {
        if (result.dataset.winner && !window.resultAt) window.resultAt = performance.now();
    }).observe(result, { attributes: true, attributeFilter: ["data-winner"] });
}"""


def place(page: Page, chips: list[tuple[int, str]]) -> None:
    for value, bet_type in chips:
        chip(page, value).click()
        page.locator(f'[data-bet="{bet_type}"]').click()
    page.get_by_role("button", name="Confirm", exact=True).click()
    expect(page.locator("[data-bet-message]")).to_contain_text("Bets accepted")


def crowd(page: Page, bet_type: str):
    """The table's total, share and bettors on an area, as its label along the area's top edge shows them."""
    return page.locator(f'[data-bet="{bet_type}"] .spot-crowd > span:not(.spot-crowd-bar)')


def boxes_intersect(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def own_stack_box(page: Page, bet_type: str) -> dict:
    """The box around every chip of the player's stack on the area (and its amount)."""
    return page.locator(f'[data-bet="{bet_type}"] .spot-stake').evaluate(
        """(stake) => {
            const parts = [stake, ...stake.querySelectorAll(".stack-chip, .spot-stake-amount")];
            const rects = parts.map((part) => part.getBoundingClientRect());
            const x = Math.min(...rects.map((r) => r.left)), y = Math.min(...rects.map((r) => r.top));
            const right = Math.max(...rects.map((r) => r.right)), bottom = Math.max(...rects.map((r) => r.bottom));
            return { x, y, width: right - x, height: bottom - y };
        }"""
    )


def test_the_win_moment_and_the_table_totals_on_three_screens(server, sized_context):
    players_created(server, *USERNAMES.values())
    pages = {
        "alice": open_table(sized_context(DESKTOP), USERNAMES["alice"], "pb1"),
        "bob": open_table(sized_context(PHONE_PORTRAIT), USERNAMES["bob"], "pb1"),
        "carol": open_table(sized_context(PHONE_LANDSCAPE), USERNAMES["carol"], "pb1"),
    }
    errors = {name: no_console_errors(page) for name, page in pages.items()}
    alice, bob, carol = pages["alice"], pages["bob"], pages["carol"]

    round_id = wait_for_betting(alice, seconds_left=7)
    place(alice, [(10, "player"), (1, "tie")])
    place(carol, [(5, "player")])
    place(bob, [(10, "banker")])

    # Table totals: each sees the whole table's stakes, their share of the main bets and the bettors.
    for page in pages.values():
        expect(page.locator(ROUND)).to_have_text(round_id)
        expect(crowd(page, "player")).to_have_text(["15", "58%", "2"])
        expect(crowd(page, "banker")).to_have_text(["10", "38%", "1"])
        expect(crowd(page, "tie")).to_have_text(["1", "4%", "1"])
    expect(alice.locator('[data-bet="player"]')).to_have_attribute(
        "aria-label", "Player, pays 1:1, your bet 10.00, table 15.00 from 2 bettors, 58% of the main bets"
    )
    # Nobody's label covers their own chips, at any of the three sizes.
    for name, page in pages.items():
        area = OWN_AREA[name]
        label = page.locator(f'[data-bet="{area}"] .spot-crowd').bounding_box()
        assert not boxes_intersect(label, own_stack_box(page, area)), name
    expect(alice.locator('[data-bet="player"] .stack-chip')).to_have_count(1)  # one 10 chip
    expect(alice.locator('[data-bet="player"] .stack-chip.chip--10')).to_have_count(1)
    carol.locator("[data-board]").scroll_into_view_if_needed()
    carol.screenshot(path=SCREENSHOTS / "totals-phone-landscape.png")

    # The result: the chips stay on the board, the winning area is lit, then each banner says the exact amount.
    for page in pages.values():
        page.evaluate(PAID_RECORDER)
        page.evaluate(AMOUNTS_RECORDER)
    result = alice.locator("[data-result]")
    expect(result).to_have_attribute("data-winner", re.compile(r"^(player|banker|tie)$"), timeout=25_000)
    winner = result.get_attribute("data-winner")
    for name, page in pages.items():
        expect(page.locator(f'[data-bet="{OWN_AREA[name]}"] .spot-stake')).to_be_visible()
        expect(page.locator(f'[data-bet="{winner}"]')).to_have_class(re.compile(r"\bspot--won\b"))
    for name, page in pages.items():
        expect(page.locator("[data-my-result] .my-result-headline")).to_have_text(BANNERS[winner][name])
        expect(page.locator("[data-my-result]")).to_have_attribute("role", "status")
    winning_page = alice if winner in ("player", "tie") else bob
    expect(winning_page.locator("[data-my-result]")).to_have_attribute("data-outcome", "win")
    # The win was counted up from nothing to its amount, the banner busy (not announced) on the way.
    won = BANNERS[winner]["alice" if winning_page is alice else "bob"].removeprefix("You won ")
    seen = winning_page.evaluate("window.amountsSeen")
    assert seen[0] == "0.00 EUR" and seen[-1] == won and len(seen) >= 4, seen
    expect(winning_page.locator("[data-my-result]")).not_to_have_attribute("aria-busy", "true")
    screenshot(alice, "win-desktop")
    screenshot(bob, "win-phone-portrait")
    # Paid out: the winner's chips grow and slide to them, then leave the board.
    winning_page.wait_for_function("(area) => window.paidSeen.includes(area)", arg=winner)
    assert winning_page.evaluate("window.paidSeen") == [winner]  # the winning area's chips only
    expect(winning_page.locator(f'[data-bet="{winner}"] .spot-stake')).to_be_hidden()

    # The next coup clears the banner, the lit area and the totals, the result having stayed up 4.5 s.
    wait_for_betting(alice, seconds_left=1)
    held = winning_page.evaluate("window.clearedAt - window.resultAt") / 1000
    assert held >= 4.3, held
    for page in pages.values():
        expect(page.locator("[data-my-result]")).to_be_empty()
        expect(page.locator(".spot--won")).to_have_count(0)
        expect(page.locator('[data-bet="player"] .spot-crowd')).to_have_attribute("data-empty", "true")
    assert errors == {"alice": [], "bob": [], "carol": []}
