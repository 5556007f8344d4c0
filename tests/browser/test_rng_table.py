"""A table dealt on demand (issue 30, seed 004), played in a browser at 1440 x 900, 390 x 844 and 844 x 390: the
shoe's commitment shown before the first deal, its (empty) roads, chips put down (and one taken off by a
right-click), Deal, the cards dealt from the scene's shoe with the result, the balance and the roads after; Rebet and
deal with the squeeze on (the cards face down, the result and balance held back until the player has opened them:
a drag and the keyboard); Player and Banker together refused. The essential controls inside the screen at every
size; reduced motion at 844 x 390 (the cards shown at once). A player launched by a partner whose (fake) seamless
wallet holds the money deals with its balance: one debit, one credit. No console error (a CSP violation is one)."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from decimal import Decimal

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import players_created, screenshot, sign_in
from tests.partners.fake_wallet import SECRET, FakeWallet

pytestmark = pytest.mark.browser

SIZES = {
    "desktop": {"viewport": {"width": 1440, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    # Reduced motion on one size: its cards are shown face up at once (and the test runs faster).
    "landscape": {
        "viewport": {"width": 844, "height": 390},
        "is_mobile": True,
        "has_touch": True,
        "reduced_motion": "reduce",
    },
}
ESSENTIAL = [
    "[data-chip]",
    '[data-bet="player"]',
    '[data-bet="tie"]',
    '[data-bet="banker"]',
    '[data-action="deal"]',
    '[data-action="rebet-deal"]',
    ".site-header .account-name",  # a long nickname gives way: sign out and the language stay on the screen
    ".site-header .account button",
]
CARD_OPEN_OR_RESULT = """() => document.querySelector('.scene-card--squeeze')
    || document.querySelector('[data-result]').textContent"""


def balance(page: Page) -> Decimal:
    return Decimal(page.locator("[data-balance]").inner_text().replace(",", ""))


def essentials_inside_the_screen(page: Page, size: str) -> None:
    """Chips, the three main areas, Deal and Rebet and deal, the header's nickname and buttons: inside the window,
    the page scrolled to its top."""
    page.evaluate("window.scrollTo(0, 0)")
    width, height = SIZES[size]["viewport"]["width"], SIZES[size]["viewport"]["height"]
    for selector in ESSENTIAL:
        for element in page.locator(selector).all():
            box = element.bounding_box()
            assert box is not None, selector
            inside = box["x"] >= 0 and box["y"] >= 0
            inside = inside and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height
            assert inside, f"{selector} at {box} is outside the {width} x {height} screen"


def squeeze_open(page: Page, size: str) -> None:
    """Open the cards offered to squeeze, as they come: the first by a drag (desktop), the rest by Enter; until
    the result shows, it and the balance are held back."""
    before, dragged = balance(page), False
    page.locator(".scene-card--squeeze").first.wait_for()  # the answer came: its first cards lie face down
    for _ in range(6):
        page.wait_for_function(CARD_OPEN_OR_RESULT)
        offered = page.locator(".scene-card--squeeze")
        if not offered.count():
            break
        card = page.locator(f'.scene-card[data-position="{offered.first.get_attribute("data-position")}"]')
        expect(page.locator("[data-result]")).to_have_text("")
        assert balance(page) == before
        if size == "desktop" and not dragged:
            expect(card).not_to_have_class(re.compile("scene-card--sliding"))  # where it lies, not on its way
            box = card.bounding_box()
            page.mouse.move(box["x"] + box["width"] * 0.9, box["y"] + box["height"] * 0.9)
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] * 0.1, box["y"] + box["height"] * 0.1, steps=6)
            screenshot(page, f"rng-{size}-squeezing")
            page.mouse.up()
            dragged = True
            expect(card).to_have_attribute("data-revealed", "squeeze")  # turned by the drag, not by itself
        else:
            card.press("Enter")
    expect(page.locator("[data-result]")).not_to_have_text("")


@pytest.mark.parametrize("size", SIZES)
def test_a_player_deals_their_own_coups(browser: Browser, server, size):
    player = f"rng_{size}"
    players_created(server, player)
    context = browser.new_context(base_url=server.url, **SIZES[size])
    errors: list[str] = []
    context.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    context.on("weberror", lambda error: errors.append(str(error.error)))
    page = context.new_page()
    sign_in(page, player, "/tables/rng5/")

    commitment = page.locator("[data-commitment]")
    expect(commitment).to_have_text(re.compile(r"^[0-9a-f]{64}$"))  # shown before the first deal
    first_commitment = commitment.inner_text()
    expect(page.locator("[data-timer]")).to_have_count(0)
    expect(page.locator("[data-roads-panel] .road-board")).not_to_have_count(0)  # its roads, empty
    assert page.locator("[data-roads-panel] .road-board circle").count() == 0
    essentials_inside_the_screen(page, size)
    screenshot(page, f"rng-{size}-ready")

    page.locator('[data-chip="10"]').click()
    page.locator('[data-bet="banker"]').click()
    page.locator('[data-bet="banker"]').click()
    page.locator('[data-bet="banker"]').click(button="right")  # takes one chip off
    expect(page.locator("[data-stake-total]")).to_have_text("10.00")
    before = balance(page)
    page.locator('[data-action="deal"]').click()

    result = page.locator("[data-result]")
    expect(result).to_have_text(re.compile(r"(Player wins|Banker wins|Tie) \d to \d"))
    assert 2 <= page.locator('[data-cards="player"] .card').count() <= 3
    assert 2 <= page.locator('[data-cards="banker"] .card').count() <= 3
    expect(page.locator('.hands [data-face="down"]')).to_have_count(0)
    if SIZES[size].get("reduced_motion"):
        assert page.locator(".hands .scene-card:not(.scene-card--instant)").count() == 0  # none turned slowly
    expect(page.locator("[data-info='round']")).to_have_text(re.compile(r"^RNG5-[0-9A-F]{10}$"))
    winner = result.get_attribute("data-winner")
    returned = {"banker": Decimal("19.50"), "player": Decimal(0), "tie": Decimal("10.00")}[winner]
    expect(page.locator("[data-balance]")).to_have_text(f"{before - Decimal('10.00') + returned:,.2f}")
    expect(page.locator("[data-rounds] li")).to_have_count(1)
    bead = page.locator("[data-roads-panel] .road--bead-plate .road-board")  # hidden on phones: its label
    expect(bead).to_have_attribute("aria-label", re.compile(r"1 coup, Banker \d, Player \d, Tie \d"))
    essentials_inside_the_screen(page, size)
    screenshot(page, f"rng-{size}-dealt")

    # Rebet and deal with the squeeze on (kept for the next visit): the cards come face down.
    toggle = page.locator("[data-squeeze-toggle]")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    round_before = page.locator("[data-info='round']").inner_text()
    page.locator('[data-action="rebet-deal"]').click()
    squeeze_open(page, size)
    expect(page.locator("[data-info='round']")).not_to_have_text(round_before)
    expect(page.locator("[data-rounds] li")).to_have_count(2)
    expect(bead).to_have_attribute("aria-label", re.compile(r"2 coups"))
    assert commitment.inner_text() == first_commitment  # the same shoe
    page.reload()
    expect(page.locator("[data-squeeze-toggle]")).to_have_attribute("aria-pressed", "true")
    expect(bead).to_have_attribute("aria-label", re.compile(r"2 coups"))  # the shoe's roads, drawn on load

    page.locator('[data-bet="player"]').click()
    page.locator('[data-bet="banker"]').click()
    rounds_shown = page.locator("[data-info='round']").inner_text()
    page.locator('[data-action="deal"]').click()
    expect(page.locator("[data-bet-message]")).to_have_text("You may not bet both Player and Banker in one coup")
    expect(page.locator("[data-info='round']")).to_have_text(rounds_shown)
    expect(page.locator("[data-rounds] li")).to_have_count(2)
    essentials_inside_the_screen(page, size)
    screenshot(page, f"rng-{size}-refused")
    # The refusal's answer (400) is the browser's one console line; nothing else.
    assert [error for error in errors if "status of 400" not in error] == []
    context.close()


def test_the_lobby_shows_the_table_dealt_on_demand(browser: Browser, server):
    players_created(server, "rng_lobby")
    context = browser.new_context(base_url=server.url, viewport={"width": 1440, "height": 900})
    page = context.new_page()
    sign_in(page, "rng_lobby", "/")
    card = page.locator('[data-lobby-table="rng5"]')
    expect(card).to_contain_text("Dealt on demand")
    expect(card).to_contain_text("Your own shoe of 4 decks")
    card.get_by_role("link", name="Deal Your Own 5").click()
    expect(page.locator("[data-commitment]")).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    context.close()


SEAMLESS_SETUP = """
from partners import services
from partners.wallet_settings import partner_wallet_set

partner = services.partner_create(code="dealco", name="Deal Co")
partner_wallet_set(partner=partner, mode="seamless", wallet_url="{wallet_url}", wallet_secret="{secret}")
print(services.partner_api_key_create(partner=partner, name="browser").key)
"""


def test_a_player_whose_partner_holds_the_money_deals_with_the_partners_balance(server, new_context):
    with FakeWallet({"u-7": "200.00"}) as wallet:
        output = server.manage("shell", "-c", SEAMLESS_SETUP.format(wallet_url=wallet.url, secret=SECRET))
        key = output.strip().splitlines()[-1]  # after the shell's own notice
        body = {"player_id": "u-7", "currency": "EUR", "table": "rng5", "return_url": "https://casino.example/"}
        request = urllib.request.Request(
            f"{server.url}/api/v1/sessions/",
            data=json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            launch_url = json.load(answer)["launch_url"]
        page = new_context().new_page()
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(launch_url)
        expect(page.locator("[data-commitment]")).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
        expect(page.locator("[data-balance]")).to_have_text("200.00")  # the partner's, as its wallet answered

        page.locator('[data-chip="10"]').click()
        page.locator('[data-bet="banker"]').click()
        page.locator('[data-action="deal"]').click()
        result = page.locator("[data-result]")
        expect(result).to_have_text(re.compile(r"(Player wins|Banker wins|Tie) \d to \d"))
        returned = {"banker": Decimal("19.50"), "player": Decimal(0), "tie": Decimal("10.00")}[
            result.get_attribute("data-winner")
        ]
        expect(page.locator("[data-balance]")).to_have_text(f"{Decimal('190.00') + returned:,.2f}")
        deadline = time.monotonic() + 10
        while not wallet.operations("credit") and time.monotonic() < deadline:  # sent on commit, by the queue
            page.wait_for_timeout(50)
        [debit], [credit] = wallet.operations("debit"), wallet.operations("credit")
        assert (debit["amount"], Decimal(credit["amount"])) == ("10.00", returned)
        assert credit["debit_transaction_ids"] == [debit["transaction_id"]]
        assert wallet.balances["u-7"] == Decimal("190.00") + returned
        screenshot(page, "rng-seamless-dealt")
        assert errors == []
