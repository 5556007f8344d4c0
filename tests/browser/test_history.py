"""The table page's game history on a phone: the player's own bets first, a cancelled bet folded, cards in
their suits' colours, amounts with their currency, and nothing wider than the screen."""

import re
import time

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PASSWORD, no_console_errors, open_table, screenshot, wait_for_betting
from tests.browser.test_lobby import horizontal_overflow

pytestmark = pytest.mark.browser

NEW_PLAYER = f"""
from decimal import Decimal
from django.contrib.auth import get_user_model
from wagering.wallets import wallet_deposit

user = get_user_model().objects.create_user(username="dora", password={PASSWORD!r})
wallet_deposit(user=user, amount=Decimal("500.00"), idempotency_key="history-dora", reason="browser tests")
"""

BET = """async ([path, body]) => {
    const token = document.querySelector('meta[name="csrf-token"]').content;
    const response = await fetch(path, {
        method: "POST",
        headers: {"Content-Type": "application/json", "X-CSRFToken": token},
        body: JSON.stringify(body),
    });
    return response.status;
}"""


def open_history_once_settled(page: Page, round_id: str) -> None:
    """Open the dialog again until the round shows what it paid (settlement follows the result)."""
    deadline = time.monotonic() + 30
    while True:
        page.get_by_role("button", name="History", exact=True).click()
        round_ = page.locator(".history-round").filter(has_text=round_id).first
        expect(round_).to_be_visible()
        if "Win—" not in round_.locator(".history-sums").inner_text().replace("\n", "").replace("\t", ""):
            return
        assert time.monotonic() < deadline, "the round was not settled in 30 s"
        page.get_by_role("button", name="Close", exact=True).click()
        page.wait_for_timeout(500)


def test_the_history_on_a_phone(server, new_context):
    server.manage("shell", "-c", NEW_PLAYER)
    page = open_table(new_context(phone=True), "dora", "pb1")
    errors = no_console_errors(page)
    round_id = wait_for_betting(page)
    assert page.evaluate(BET, ["/tables/pb1/bets/", {"bets": {"player": "5"}, "round_id": round_id}]) == 200
    assert page.evaluate(BET, ["/tables/pb1/bets/", {"bets": {"tie": "1"}, "round_id": round_id}]) == 200
    assert page.evaluate(BET, ["/tables/pb1/bets/undo/", {"round_id": round_id}]) == 200
    expect(page.locator("[data-result]")).to_have_text(re.compile(r"wins|Tie"), timeout=25_000)

    open_history_once_settled(page, round_id)
    dialog = page.get_by_role("dialog", name="Game history")
    headings = dialog.get_by_role("heading", level=3)
    expect(headings).to_have_text(["Your bets", "Latest results"])
    mine = dialog.locator("section", has=page.get_by_role("heading", name="Your bets")).locator(".history-round")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text(round_id)
    expect(mine.locator(".history-bets").first).to_contain_text(re.compile(r"^Player 5\.00 EUR: (won|lost|push)"))
    expect(mine.locator(".history-sums")).to_contain_text(re.compile(r"Stake5\.00 EUR.*Balance after[\d,]+\.\d\d EUR"))

    cancelled = mine.locator("details")
    expect(cancelled.locator("summary")).to_have_text("1 cancelled bet")
    expect(cancelled.get_by_text("Tie 1.00 EUR: cancelled")).to_be_hidden()  # folded
    cancelled.locator("summary").click()
    expect(cancelled.get_by_text("Tie 1.00 EUR: cancelled")).to_be_visible()

    colours = mine.locator(".mini-card").evaluate_all(
        """cards => cards.map(card => [card.getAttribute("aria-label"), getComputedStyle(card).color,
                                       getComputedStyle(card).backgroundColor])"""
    )
    assert 4 <= len(colours) <= 6
    for name, colour, face in colours:
        red = name.endswith(("hearts", "diamonds"))
        assert colour == ("rgb(196, 29, 43)" if red else "rgb(22, 24, 29)"), name
        assert face == "rgb(251, 248, 239)"
    assert horizontal_overflow(page) <= 0
    screenshot(page, "history-phone")
    assert errors == []
