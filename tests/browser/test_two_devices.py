"""One truth per player (issue 32): the same player at the same table on a desktop and on a phone sees the same
bets and balance on both, whichever device placed, removed or won them."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import no_console_errors, open_table, players_created, screenshot, wait_for_betting
from tests.browser.test_table_page import ROUND
from tests.browser.test_table_win_and_totals import place

pytestmark = pytest.mark.browser

PLAYER = "twodevices"


def stake(page: Page, bet_type: str):
    return page.locator(f'[data-bet="{bet_type}"] .spot-stake')


def test_a_players_desktop_and_phone_show_the_same_bets_and_balance(server, new_context):
    players_created(server, PLAYER)
    desktop = open_table(new_context(), PLAYER, "pb1")
    phone = open_table(new_context(phone=True), PLAYER, "pb1")
    round_id = wait_for_betting(desktop, seconds_left=6)
    expect(phone.locator(ROUND)).to_have_text(round_id)

    place(desktop, [(10, "player")])  # placed on the desktop: the phone shows it, chip and balance
    expect(stake(phone, "player")).to_have_text("10")
    expect(phone.locator("[data-balance]")).to_have_text("990.00")
    expect(phone.locator("[data-stake-total]")).to_have_text("10.00")
    screenshot(phone, "two-devices-phone-sees-the-desktops-bet")

    phone.get_by_role("button", name="Remove", exact=True).click()  # removed on the phone: gone on the desktop
    expect(phone.locator("[data-bet-message]")).to_contain_text("removed")
    expect(stake(desktop, "player")).to_be_hidden()
    expect(desktop.locator("[data-balance]")).to_have_text("1,000.00")

    place(phone, [(5, "banker")])  # placed on the phone, settled on both
    expect(stake(desktop, "banker")).to_have_text("5")
    expect(desktop.locator("[data-stake-total]")).to_have_text("5.00")
    for page in (desktop, phone):
        expect(page.locator("[data-my-result]")).to_have_text(
            re.compile(r"You won|No win|You broke even"), timeout=40_000
        )
    expect(phone.locator("[data-balance]")).to_have_text(desktop.locator("[data-balance]").inner_text())
    assert desktop.locator("[data-balance]").inner_text() in ("1,004.75", "995.00", "1,000.00")
    screenshot(desktop, "two-devices-desktop-after-the-result")
    for page in (desktop, phone):
        assert no_console_errors(page) == []
