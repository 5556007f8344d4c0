"""The lobby and signing in, in Chromium against a real server."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot, sign_in

pytestmark = pytest.mark.browser


def test_the_lobby_follows_every_open_table_live(new_context):
    page = new_context().new_page()
    page.goto("/")
    expect(page.locator("[data-lobby-table]")).to_have_count(2)
    for code, name in (("pb1", "Punto Banco 1"), ("nc2", "No Commission 2")):
        card = page.locator(f'[data-lobby-table="{code}"]')
        expect(card.get_by_role("link", name=name)).to_have_attribute("href", f"/tables/{code}/")
        expect(card).to_have_attribute("data-phase", re.compile(r"^(betting|dealing|idle|result-\w+)$"))
        expect(card.locator("[data-big-road] svg")).to_have_attribute("aria-label", re.compile(r"^Big Road"))
        expect(card.locator(".lobby-limits")).to_contain_text("Player1–1,000")
    betting = page.locator('[data-lobby-table][data-phase="betting"] [data-status]').first
    expect(betting).to_have_text(re.compile(r"^Place your bets · \d+ s$"), timeout=30_000)
    screenshot(page, "lobby-desktop")

    page.get_by_role("link", name="Punto Banco 1").click()
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/tables/pb1/$"))


def test_sign_in_and_out(new_context):
    page = new_context().new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("Please enter a correct username and password")

    sign_in(page, "alice")
    expect(page.get_by_role("navigation", name="Account")).to_contain_text("alice")
    page.get_by_role("button", name="Sign out", exact=True).click()
    expect(page.get_by_role("navigation", name="Account").get_by_role("link", name="Sign in")).to_be_visible()
