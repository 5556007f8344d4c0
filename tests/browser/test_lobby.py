"""The lobby and signing in, in Chromium against a real server."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import no_console_errors, screenshot, sign_in

pytestmark = pytest.mark.browser


def horizontal_overflow(page: Page) -> int:
    """How much wider than the viewport set the page is (a phone widens its layout viewport to fit)."""
    return page.evaluate("document.documentElement.scrollWidth") - page.viewport_size["width"]


def test_the_lobby_follows_every_open_table_live(new_context):
    page = new_context().new_page()
    errors = no_console_errors(page)
    page.goto("/")
    cards, closed = page.locator("[data-lobby-table]"), page.locator('[data-lobby-table][data-phase="closed"]')
    expect(cards.first).to_be_attached()
    assert cards.count() == page.locator("[data-lobby-table]:has(a.lobby-link)").count() + closed.count()
    for code, name in (("pb1", "Punto Banco 1"), ("nc2", "No Commission 2")):
        card = page.locator(f'[data-lobby-table="{code}"]')
        expect(card.get_by_role("link", name=name)).to_have_attribute("href", f"/tables/{code}/")
        expect(card).to_have_attribute("data-phase", re.compile(r"^(betting|dealing|idle|result-\w+)$"))
        expect(card.locator("[data-big-road] svg")).to_have_attribute("aria-label", re.compile(r"^Big Road"))
        expect(card.locator(".lobby-limits")).to_contain_text("Player1–1,000 EUR")
    betting = page.locator('[data-lobby-table][data-phase="betting"] [data-status]').first
    expect(betting).to_have_text(re.compile(r"^Place your bets · \d+ s$"), timeout=30_000)
    expect(page.get_by_role("navigation", name="Account")).not_to_contain_text("Balance")
    screenshot(page, "lobby-desktop")
    assert errors == []

    page.get_by_role("link", name="Punto Banco 1").click()
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/tables/pb1/$"))


def test_a_closed_table_is_shown_marked_with_no_way_in(new_context):
    page = new_context().new_page()
    page.goto("/")
    closed = page.locator('[data-lobby-table][data-phase="closed"]').first  # a dealer table of the demo data
    expect(closed.get_by_role("heading", level=2)).to_have_text(re.compile(r"^Live Dealer \d \(closed\)$"))
    expect(closed.locator(".lobby-status")).to_have_text("Closed")
    expect(closed.get_by_role("link")).to_have_count(0)
    closed.click()
    expect(page).to_have_url(re.compile(r"/$"))


def test_the_whole_card_opens_the_table(new_context):
    page = new_context().new_page()
    sign_in(page, "alice")
    card = page.locator('[data-lobby-table="nc2"]')
    expect(card.locator("[data-big-road] svg")).to_be_attached()
    box = card.bounding_box()
    card.click(position={"x": box["width"] / 2, "y": box["height"] - 12})  # the limits, far from the name
    expect(page).to_have_url(re.compile(r"/tables/nc2/$"))


def test_a_phone_sees_the_first_tables_on_one_screen_with_the_balance_in_the_header(new_context):
    page = new_context(phone=True).new_page()
    errors = no_console_errors(page)
    sign_in(page, "alice")
    balance = page.locator(".account-balance")
    expect(balance).to_be_visible()
    expect(balance).to_have_text(re.compile(r"^Balance [\d,]+\.\d\d EUR$"))
    expect(page.locator('[data-lobby-table="pb1"] [data-big-road] svg')).to_be_attached()
    assert horizontal_overflow(page) <= 0
    height = page.viewport_size["height"]
    first_three = page.locator("[data-lobby-table]").evaluate_all(
        "cards => cards.slice(0, 3).map(card => card.getBoundingClientRect().bottom)"
    )
    screenshot(page, "lobby-phone")
    assert len(first_three) == 3 and max(first_three) <= height, (first_three, height)
    assert errors == []


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_each_card_previews_its_coup_s_cards_as_they_are_dealt(new_context, phone):
    page = new_context(phone=phone).new_page()
    errors = no_console_errors(page)
    page.goto("/")
    card = page.locator('[data-lobby-table="pb1"]')
    expect(card).to_have_attribute("data-phase", "betting", timeout=40_000)
    scene = card.locator("[data-scene]")
    expect(scene).to_have_attribute("data-dealt", "0")  # a new coup: no card yet
    expect(scene).to_have_attribute("data-dealt", re.compile(r"^[4-6]$"), timeout=40_000)  # dealt, face up
    for hand in ("player", "banker"):
        cards = card.locator(f'[data-hand-cards="{hand}"] .mini-card')
        expect(cards.first).to_have_text(re.compile(r"^(A|[2-9]|10|J|Q|K)[♠♥♦♣]$"))
        expect(card.locator(f'[data-hand-total="{hand}"]')).to_have_text(re.compile(r"^\d$"))
    expect(card).to_have_attribute("data-phase", re.compile(r"^result-(player|banker|tie)$"), timeout=20_000)
    winner = card.get_attribute("data-phase").removeprefix("result-")
    totals = {hand: int(card.locator(f'[data-hand-total="{hand}"]').inner_text()) for hand in ("player", "banker")}
    expected = "tie" if totals["player"] == totals["banker"] else max(totals, key=totals.get)
    assert winner == expected, (winner, totals)  # the preview's totals are the result's
    screenshot(page, f"lobby-preview-{'phone' if phone else 'desktop'}")
    assert errors == []


def test_an_unknown_table_is_the_sites_own_404(new_context):
    page = new_context(phone=True).new_page()
    errors = no_console_errors(page)
    sign_in(page, "alice")
    response = page.goto("/tables/no-such-table/")
    assert response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("There is nothing here")
    expect(page.get_by_role("link", name="Back to the lobby")).to_have_attribute("href", "/")
    assert page.evaluate("getComputedStyle(document.body).backgroundImage").startswith("radial-gradient")
    assert horizontal_overflow(page) <= 0
    screenshot(page, "404")
    assert errors == ["Failed to load resource: the server responded with a status of 404 (Not Found)"], errors


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
