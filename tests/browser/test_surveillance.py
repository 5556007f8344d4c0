"""The surveillance pages (issue 18) at a desktop: the shoes in play, and a finished one-deck shoe of the closed
dealer table whose pair bets turned in the player's favour, with the player who raised on them; no console
error and no CSP violation (no inline style or script)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PASSWORD, SCREENSHOTS, TOTP_NOW, no_console_errors, screenshot

# The unit tests' late shoe, finished, at a dealer table of its own (closed): "wong" bets 2.00 on the player
# pair early and 40.00 once it is in the player's favour, "flat" 10.00 throughout.
pytestmark = pytest.mark.browser

LATE_SHOE = """
from django.utils import timezone
from tables.models import Shoe
from tables.services import table_create
from tests.casino.test_surveillance import BURN_SHOWN, COUPS_DEALT, player
from tests.factories import CoupFactory, ShoeFactory, coup_deal_and_resolve
from wagering.placement import bet_batch_place

table = table_create(
    code="eye1", name="Watched 1", actor=None, dealing_mode="dealer", side_bets=["player_pair", "banker_pair"]
)
shoe = ShoeFactory(table=table, decks=1, cut_card_position=38, burn_shown=BURN_SHOWN, card_order_encrypted="")
wong, flat = player("wong"), player("flat")
for number, cards in enumerate([*COUPS_DEALT, ["AS", "JD", "AH", "QC", "KS", "KH"]], start=1):
    coup = CoupFactory(table=table, shoe=shoe)
    if number <= 3 or number > len(COUPS_DEALT):
        bet_batch_place(user=wong, coup=coup, bets={"player_pair": "40.00" if number > 3 else "2.00"})
        bet_batch_place(user=flat, coup=coup, bets={"player_pair": "10.00"})
    coup_deal_and_resolve(coup, " ".join(cards))
shoe.state, shoe.coups_started, shoe.finished_at = Shoe.State.FINISHED, coup.number, timezone.now()
shoe.save()
"""


def test_surveillance_sees_the_favourable_bets_and_who_raised_on_them(browser, server):
    server.manage("shell", "-c", LATE_SHOE)
    context = browser.new_context(base_url=server.url, viewport=DESKTOP)
    page = context.new_page()
    failed = []
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    errors = no_console_errors(page)

    page.goto("/console/surveillance/")
    page.get_by_label("Username").fill("surveillance")
    page.get_by_label("Password").fill(PASSWORD)
    code = server.manage("shell", "-c", TOTP_NOW.format(username="surveillance")).split()[-1]
    page.locator("input[name=otp_token]").fill(code)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Shoes in play")
    expect(page.locator("table.grid tbody tr").filter(has_text="Punto Banco 1")).to_have_count(1)
    screenshot(page, "surveillance-floor-desktop")

    page.get_by_role("link", name=re.compile(r"^Watched 1, shoe \d+$")).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Watched 1")
    alerts = page.locator("section.alerts")
    expect(alerts).to_contain_text("Player pair")
    expect(alerts).to_contain_text("raised: wong (Player pair)")
    suspects = page.locator("tr.suspects")
    expect(suspects).to_have_count(1)
    expect(suspects).to_contain_text("wong raised on Player pair: 40.00 EUR, ×20.0 their average of 2.00 on it")
    expect(page.locator("td.favourable").first).to_be_visible()
    assert "flat" not in page.locator("main").inner_text()
    screenshot(page, "surveillance-desktop")
    page.screenshot(path=SCREENSHOTS / "surveillance-desktop-full.png", full_page=True)
    assert errors == [], failed
    context.close()
