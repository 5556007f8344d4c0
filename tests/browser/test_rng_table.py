"""A table dealt on demand (issue 30, seed 004), played in a browser at 1440 x 900 and 390 x 844: the shoe's
commitment shown before the first deal, chips put down (and one taken off by a right-click), Deal, the cards
face up with the result and the balance after; Rebet and deal; Player and Banker together refused. A player
launched by a partner whose (fake) seamless wallet holds the money deals with its balance: one debit, one
credit. No console error (a CSP violation is one)."""

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
}


def balance(page: Page) -> Decimal:
    return Decimal(page.locator("[data-balance]").inner_text().replace(",", ""))


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
    expect(page.locator("[data-info='round']")).to_have_text(re.compile(r"^RNG5-[0-9A-F]{10}$"))
    winner = result.get_attribute("data-winner")
    returned = {"banker": Decimal("19.50"), "player": Decimal(0), "tie": Decimal("10.00")}[winner]
    expect(page.locator("[data-balance]")).to_have_text(f"{before - Decimal('10.00') + returned:,.2f}")
    expect(page.locator("[data-rounds] li")).to_have_count(1)
    screenshot(page, f"rng-{size}-dealt")

    round_before = page.locator("[data-info='round']").inner_text()
    page.locator('[data-action="rebet-deal"]').click()
    expect(page.locator("[data-info='round']")).not_to_have_text(round_before)
    expect(page.locator("[data-rounds] li")).to_have_count(2)
    assert commitment.inner_text() == first_commitment  # the same shoe

    page.locator('[data-bet="player"]').click()
    page.locator('[data-bet="banker"]').click()
    rounds_shown = page.locator("[data-info='round']").inner_text()
    page.locator('[data-action="deal"]').click()
    expect(page.locator("[data-bet-message]")).to_have_text("You may not bet both Player and Banker in one coup")
    expect(page.locator("[data-info='round']")).to_have_text(rounds_shown)
    expect(page.locator("[data-rounds] li")).to_have_count(2)
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
