"""The dealer console on a touch tablet (issue 18): the demo's dealer table with its two seated patrons, a
whole coup dealt from the console with chips entered per seat, settled to the seats; no console error and
no CSP violation (no inline style or script anywhere)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import PASSWORD, SCREENSHOTS, screenshot
from tests.browser.test_lobby import no_console_errors

TABLET = {"width": 1024, "height": 768}
TOTP_NOW = (
    "from django.contrib.auth import get_user_model; from casino.two_factor import staff_device; "
    "from tests.factories import totp_code; "
    "print(totp_code(staff_device(user=get_user_model().objects.get(username='dealer'))))"
)


def dealer_sign_in(page: Page, server) -> None:
    page.goto("/console/live3/")
    page.get_by_label("Username").fill("dealer")
    page.get_by_label("Password").fill(PASSWORD)
    page.locator("input[name=otp_token]").fill(server.manage("shell", "-c", TOTP_NOW).split()[-1])
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Live Dealer 3 (live3)")


def seat(page: Page, number: int):
    return page.locator(f'[data-seat="{number}"]')


def test_a_dealer_table_coup_with_seated_patrons_from_the_console(browser, server):
    context = browser.new_context(base_url=server.url, viewport=TABLET, has_touch=True)
    page = context.new_page()
    failed = []
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    errors = no_console_errors(page)
    dealer_sign_in(page, server)
    expect(seat(page, 3).locator(".patron")).to_contain_text("carol")
    expect(seat(page, 7).locator(".patron")).to_contain_text("gentleman in grey")
    expect(seat(page, 1)).to_contain_text("Free")

    page.get_by_label("Burn card shown").fill("5H")
    page.get_by_role("button", name="Prepare and start the shoe").click()
    page.get_by_role("button", name="Open a coup for betting").click()
    for number, box, chips in ((3, "Banker", "100"), (7, "Player", "50")):
        form = seat(page, number).locator("form.seat-bet")
        form.get_by_label("Box").select_option(label=box)
        form.get_by_label("Chips").fill(chips)
        form.get_by_role("button", name="Enter chips").click()
        expect(page.locator(".messages")).to_contain_text(f"Seat {number}: {chips}.00 on {box}")
    screenshot(page, "console-seats-betting-tablet")

    page.get_by_role("button", name="No more bets").click()
    for card, hand in (("2S", "Player"), ("9H", "Banker"), ("3D", "Player"), ("KC", "Banker")):
        page.get_by_label("Card").fill(card)
        page.get_by_role("radio", name=hand, exact=True).check()
        page.get_by_role("button", name="Enter the card").click()
        expect(page.locator(".messages")).to_contain_text(f"{card} to the {hand.lower()}")
    page.get_by_role("button", name="Resolve the coup").click()
    expect(page.locator(".messages")).to_contain_text("Banker wins, 5 to 9")
    page.reload()  # settlement runs on commit
    expect(seat(page, 3).locator(".seat-bets")).to_have_text(re.compile(r"Banker 100\.00: win, pay 195\.00"))
    expect(seat(page, 7).locator(".seat-bets")).to_have_text(re.compile(r"Player 50\.00: lose"))
    screenshot(page, "console-seats-settled-tablet")
    page.locator('section[aria-labelledby="seats-heading"]').screenshot(path=SCREENSHOTS / "console-seats-tablet.png")
    assert errors == [], failed
    context.close()
