"""The dealer console follows its table live (issue 18): a pit boss holds the coup in the admin, from another
browser, and the dealer's tablet shows the held-coup alert within seconds, without a reload and without
losing what the dealer is typing; the panels catch up as soon as the dealer is done; the release, likewise.
And the players follow the dealer: the coup the dealer opens after the cut card is the last, live."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import (
    SCREENSHOTS,
    Server,
    no_console_errors,
    open_table,
    players_created,
    screenshot,
    shoe_start_at_the_console,
    staff_sign_in,
)
from tests.browser.test_dealer_console import TABLET, said

pytestmark = pytest.mark.browser

# A dealer table of the test's own, with staff of its own: a TOTP code is accepted once, so the demo's staff,
# whom other tests sign in, are left to them.
TABLE_OF_ITS_OWN = """
from django.contrib.auth import get_user_model
from casino.sign_in.two_factor import staff_device, staff_totp_device_issue
from tables.roles import DEALER, PIT_BOSS, roles_ensure
from tables.services import dealer_login, table_create, table_open

def staff(username, role):
    user = get_user_model().objects.create_user(username=username, password="punto-demo", is_staff=True)
    user.groups.add(roles_ensure()[role])
    staff_device(user=user) or staff_totp_device_issue(user=user)
    return user

table = table_open(table=table_create(code={code!r}, name={code!r}, dealing_mode="dealer"), reason="browser test")
dealer_login(table=table, dealer=staff({dealer!r}, DEALER))
for username in {pit_bosses!r}:
    staff(username, PIT_BOSS)
"""
HELD_ALERT = "Held for the pit: surveillance asked for a look. Nothing is dealt until a pit boss decides in the admin."


def coup_action(pit: Page, round_id: str, action: str) -> None:
    """An action of the Coup admin on the coup, confirmed with a reason."""
    pit.goto(f"/admin/tables/coup/?q={round_id}")
    pit.locator("tr", has=pit.get_by_text(round_id, exact=True)).locator("input.action-select").check()
    pit.locator("select[name=action]").select_option(label=action)
    pit.get_by_role("button", name="Go").click()
    pit.get_by_label("Reason").fill("surveillance asked for a look")
    pit.get_by_role("button", name="Confirm").click()
    expect(pit.locator(".messagelist")).to_contain_text("Done:")


def test_a_hold_by_the_pit_shows_on_the_dealers_console_without_a_reload(browser: Browser, server: Server):
    server.manage("shell", "-c", TABLE_OF_ITS_OWN.format(code="live9", dealer="dealer9", pit_bosses=["pitboss9"]))
    dealer = staff_sign_in(
        browser.new_context(base_url=server.url, viewport=TABLET, has_touch=True), server, "dealer9", "/console/live9/"
    )
    errors = no_console_errors(dealer)
    shoe_start_at_the_console(dealer)
    dealer.get_by_role("button", name="Open a coup for betting").click()
    said(dealer, "bets, please.")
    round_id = re.search(r"\(([^()]+)\): Betting", dealer.locator("#coup-heading + p").inner_text())[1]
    # The time left to bet, counted down by the server's clock as on the player's page (issue 32).
    countdown = dealer.locator("[data-betting-countdown]")
    expect(countdown).to_have_text(re.compile(r"^, \d+ s left$"))
    first = int(countdown.get_attribute("data-seconds-left"))
    held_alert = dealer.locator("[data-held-alert]")
    expect(held_alert).to_be_hidden()

    # The dealer is typing a guest's name when the pit boss holds the coup from the admin.
    dealer.evaluate("window.sameDocument = true")
    guest_name = dealer.locator("form.seat-patron").get_by_label("Guest name")
    guest_name.fill("man in a hat")
    pit = staff_sign_in(browser.new_context(base_url=server.url), server, "pitboss9", "/admin/tables/coup/")
    coup_action(pit, round_id, "Hold the selected coups for the pit")

    expect(held_alert).to_have_text(HELD_ALERT, timeout=8_000)  # the poll, every 3 s
    assert int(countdown.get_attribute("data-seconds-left")) < first  # counted down meanwhile, by itself
    dealer.locator("#coup-heading + p").screenshot(path=SCREENSHOTS / "console-countdown-tablet.png")
    expect(dealer.get_by_role("alert")).to_be_visible()
    expect(guest_name).to_have_value("man in a hat")  # nothing swapped under the dealer's fingers
    expect(dealer.get_by_role("button", name="No more bets")).to_be_visible()
    screenshot(dealer, "console-held-live-tablet")

    # Done typing: the panels catch up (the coup held, no more "No more bets"), still the same page.
    guest_name.fill("")
    guest_name.blur()
    expect(dealer.get_by_role("button", name="No more bets")).to_have_count(0, timeout=8_000)
    expect(dealer.locator("#coup-heading + p")).to_contain_text("Held for the pit")
    expect(held_alert).to_have_text(HELD_ALERT)

    coup_action(pit, round_id, "Release the selected held coups")
    expect(held_alert).to_be_hidden(timeout=8_000)
    expect(dealer.get_by_role("button", name="No more bets")).to_be_visible()
    assert dealer.evaluate("window.sameDocument") is True  # never reloaded
    dealer.get_by_role("button", name="No more bets").click()  # the swapped-in panels work
    said(dealer, "No more bets.")
    assert errors == []


CUT_CARD_OUT = """
from tables.models import Table
from tables.shoes import shoe_cut_card_out
from tests.factories import physical_shoe_start

shoe = physical_shoe_start(table=Table.objects.get(code="live8"), actor=None, burn_card="7H")
shoe_cut_card_out(shoe=shoe, actor=None)
"""


def test_the_coup_the_dealer_opens_after_the_cut_card_is_the_last_on_the_table_page_and_in_the_lobby(
    browser: Browser, server: Server
):
    """Seed 000, glossary, CUT CARD: once it is dealt from the shoe, the cards are reshuffled when the next coup
    is completed. Before that coup the pages say it is the next; as the dealer opens it, that it is the last."""
    server.manage("shell", "-c", TABLE_OF_ITS_OWN.format(code="live8", dealer="dealer8", pit_bosses=[]))
    server.manage("shell", "-c", CUT_CARD_OUT)
    players_created(server, "player8")
    player = browser.new_context(base_url=server.url)
    table_page = open_table(player, "player8", "live8")
    lobby = player.new_page()
    lobby.goto("/")
    notices = (table_page.locator("[data-cut-card]"), lobby.locator('[data-lobby-table="live8"] [data-cut-card]'))
    for notice in notices:
        expect(notice).to_have_text("Cut card out: the next coup is the last")

    dealer = staff_sign_in(
        browser.new_context(base_url=server.url, viewport=TABLET, has_touch=True), server, "dealer8", "/console/live8/"
    )
    expect(dealer.locator("#shoe-heading + p")).to_contain_text("The cut card is out: coup 1 is the last.")
    dealer.get_by_role("button", name="Open a coup for betting").click()
    said(dealer, "bets, please.")
    for notice in notices:
        expect(notice).to_have_text("Cut card out: this is the last coup")
    screenshot(table_page, "table-last-coup-desktop")
    assert no_console_errors(table_page) == no_console_errors(lobby) == []
