"""Issue 18's whole dealer-table coup, in browsers: the pit boss counts the tray, the dealer seats a third
patron beside the demo's two and sells them chips, two online players bet on the same coup from the table
page, the dealer enters the seats' chips at the console (a touch tablet), the highest bettor on each hand is
shown to everyone (seed 000 §5.1), the cards are tapped in, and the result is settled to chips and wallets;
the shift's drop and win and the patrons' ratings are right to the cent. No console error, no CSP violation
(no inline style or script) on any page."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import (
    SCREENSHOTS,
    no_console_errors,
    open_table,
    players_created,
    screenshot,
    shoe_start_at_the_console,
    staff_sign_in,
)
from tests.browser.test_table_page import chip

pytestmark = pytest.mark.browser

TABLET = {"width": 1024, "height": 768}
ONLINE = ("dana", "erin")  # players of this test's own: the demo's keep their balances for the other tests


def seat(page: Page, number: int):
    return page.locator(f'[data-seat="{number}"]')


def said(page: Page, text: str) -> None:
    expect(page.locator(".messages")).to_contain_text(text)


def balance(page: Page) -> Decimal:
    return Decimal(page.locator("[data-balance]").inner_text().replace(",", ""))


def online_bet(page: Page, value: int, area: str) -> None:
    chip(page, value).click()
    page.locator(f'[data-bet="{area}"]').click()
    page.get_by_role("button", name="Confirm", exact=True).click()
    expect(page.locator("[data-bet-message]")).to_contain_text("Bets accepted")


def test_a_dealer_table_coup_with_three_seated_patrons_and_two_online_players(browser, server):
    staff = browser.new_context(base_url=server.url, viewport=TABLET, has_touch=True)
    players = [browser.new_context(base_url=server.url) for _ in range(2)]
    pit = staff_sign_in(staff, server, "pitboss", "/console/live3/")
    errors = no_console_errors(pit)

    # The pit boss opens the shift: the tray counted.
    tray = pit.locator("form", has=pit.get_by_role("button", name=re.compile("^Count the tray")))
    tray.get_by_label("Amount").fill("10000")
    tray.get_by_role("button").click()
    said(pit, "Shift opened: 10000.00 EUR counted in the tray.")

    dealer_context = browser.new_context(base_url=server.url, viewport=TABLET, has_touch=True)
    dealer = staff_sign_in(dealer_context, server, "dealer", "/console/live3/")
    errors += no_console_errors(dealer)
    expect(seat(dealer, 3).locator(".patron")).to_contain_text("carol")
    expect(seat(dealer, 7).locator(".patron")).to_contain_text("gentleman in grey")
    seating = dealer.locator("form.seat-patron")
    seating.get_by_label("Seat").select_option("5")
    seating.get_by_label("Guest name").fill("lady in red")
    seating.get_by_role("button", name="Seat the patron").click()
    said(dealer, "lady in red seated at seat 5, playing EUR chips.")
    for number, cash in ((3, "500"), (5, "300"), (7, "200")):
        seat(dealer, number).locator("summary").click()
        seat(dealer, number).get_by_label("Cash for chips").fill(cash)
        seat(dealer, number).get_by_role("button", name="Chips for cash").click()
        said(dealer, f"Seat {number}: {cash}.00 EUR in chips for cash.")

    shoe_start_at_the_console(dealer)
    dealer.get_by_role("button", name="Open a coup for betting").click()
    said(dealer, "bets, please.")

    # Two online players bet on the same coup from the table page.
    players_created(server, *ONLINE)
    dana, erin = (open_table(context, name, "live3") for context, name in zip(players, ONLINE, strict=True))
    errors += no_console_errors(dana) + no_console_errors(erin)
    seated = dana.get_by_role("list", name="Seated patrons")
    expect(seated).to_contain_text("Seat 5 guest")
    expect(seated).to_contain_text("Seat 7 guest")
    expect(seated).to_contain_text("Seat 3: ca***")  # a display name, never the username
    expect(seated).not_to_contain_text("lady in red")  # the dealer's name for a guest stays with staff
    before = {"dana": balance(dana), "erin": balance(erin)}
    online_bet(dana, 25, "player")
    online_bet(erin, 10, "banker")

    dealer.reload()
    for number, box, chips in ((3, "Banker", "100"), (5, "Player", "50"), (7, "Player", "30"), (7, "Tie", "5")):
        form = seat(dealer, number).locator("form.seat-bet")
        form.get_by_label("Box").select_option(label=box)
        form.get_by_label("Chips").fill(chips)
        form.get_by_role("button", name="Enter chips").click()
        said(dealer, f"Seat {number}: {chips}.00 on {box}")
    screenshot(dealer, "console-seats-betting-tablet")

    dealer.get_by_role("button", name="No more bets").click()
    # Seed 000 §5.1: the highest bettor on each hand: seat 5's 50 on Player over dana's 25, seat 3's 100 on Banker.
    expect(dealer.locator(".showing")).to_contain_text("Player hand to seat 5 (lady in red)")
    expect(dealer.locator(".showing")).to_contain_text("Banker hand to seat 3 (carol)")
    for page in (dana, erin):
        expect(page.locator('[data-shown-by="player"]')).to_have_text("Shown by Seat 5")
        expect(page.locator('[data-shown-by="banker"]')).to_have_text("Shown by Seat 3")
    for card, hand in (("2S", "player"), ("9H", "banker"), ("3D", "player"), ("KC", "banker")):
        dealer.get_by_role("radio", name=hand.capitalize(), exact=True).check()
        dealer.locator(f'[data-rank="{card[0]}"]').click()
        dealer.locator(f'[data-suit="{card[1]}"]').click()  # the rank and the suit enter the card
        said(dealer, f"{card} to the {hand}")
    dealer.get_by_role("button", name="Resolve the coup").click()
    # Said as the players' pages say it, the winner's total first (the console said "Banker wins, 5 to 9").
    said(dealer, "Banker wins 9 to 5.")
    expect(dealer.locator("[data-result]")).to_have_text("Banker wins 9 to 5")
    for page in (dana, erin):
        expect(page.locator("[data-result]")).to_have_text(re.compile(r"^Banker wins 9 to 5\b"))

    # Settled to chips at the console, to the wallets on the table page.
    dealer.reload()
    expect(seat(dealer, 3).locator(".seat-bets")).to_have_text(re.compile(r"Banker 100\.00: win, pay 195\.00"))
    expect(seat(dealer, 5).locator(".seat-bets")).to_have_text(re.compile(r"Player 50\.00: lose"))
    expect(seat(dealer, 7).locator(".seat-bets")).to_contain_text("Tie 5.00: lose")
    screenshot(dealer, "console-seats-settled-tablet")
    dealer.locator('section[aria-labelledby="seats-heading"]').screenshot(path=SCREENSHOTS / "console-seats-tablet.png")
    expect(dana.locator("[data-balance]")).to_have_text(f"{before['dana'] - 25:,.2f}")
    expect(erin.locator("[data-balance]")).to_have_text(f"{before['erin'] + Decimal('9.50'):,.2f}")

    # The shift: drop 1,000; the seats staked 185 and got 195 back (the tray is 10 down); online 35 staked, 19.50 back.
    pit.reload()
    shift = pit.locator("table.shift")
    for row, value in (
        ("Drop (chips sold)", "1000.00"),
        ("Tray should hold", "8990.00"),
        ("Win, seated", "-10.00 (hold -1.00%)"),
        ("Win, online", "15.50 on 35.00 staked"),
        ("Win, table", "5.50"),
    ):
        expect(shift.locator("tr", has=pit.get_by_role("rowheader", name=row)).locator("td")).to_have_text(value)
    screenshot(pit, "console-tray-tablet")
    # The pit screen: every table, live3's seats and shift among them.
    pit.goto("/console/floor/pit/")
    live3 = pit.locator('[data-pit-table="live3"]')
    expect(live3).to_contain_text("3: carol, 5: lady in red, 7: gentleman in grey")
    expect(live3).to_contain_text("drop 1000.00, win 5.50 (seated -10.00, online 15.50)")
    expect(live3).to_contain_text("Settled: Banker · 2 online bettors")  # dana and erin, the coup settled
    screenshot(pit, "pit-screen-tablet")
    pit.goto("/console/live3/")
    tray = pit.locator("form", has=pit.get_by_role("button", name=re.compile("^Count the tray")))
    tray.get_by_label("Amount").fill("8990")
    tray.get_by_role("button").click()
    said(pit, "Shift closed: 8990.00 EUR counted; win -10.00, variance 0.00.")

    # Players see the burn card, and the cut card coming out (seed 000): on the table page and in the lobby.
    expect(dana.locator('[data-info="shoe"]')).to_have_text("1 · Burn card 5♥: 5 cards burned")
    expect(dana.locator("[data-cut-card]")).to_be_hidden()
    dealer.get_by_role("button", name="The cut card came out").click()
    said(dealer, "Cut card out: coup 2 is the last of shoe 1.")
    expect(dana.locator("[data-cut-card]")).to_have_text("Cut card out: the next coup is the last")
    lobby = players[1].new_page()
    lobby.goto("/")
    expect(lobby.locator('[data-lobby-table="live3"] [data-cut-card]')).to_have_text(
        "Cut card out: the next coup is the last"
    )
    errors += no_console_errors(lobby)

    # The ratings, in the admin: hands, average bet, theoretical win by the exact edge, actual win.
    pit.goto("/admin/tables/seatsession/")
    for patron, figures in (
        ("carol", ("500.00", "1", "100.00", "1.06", "-95.00")),
        ("lady in red", ("300.00", "1", "50.00", "0.62", "50.00")),
        ("gentleman in grey", ("200.00", "1", "35.00", "1.09", "35.00")),
    ):
        row = pit.locator("#result_list tr", has=pit.get_by_text(patron, exact=True))
        cells = [
            row.locator(f"td.field-{name}")
            for name in ("buy_in", "hands", "average_bet", "theoretical_win", "actual_win")
        ]
        for cell, value in zip(cells, figures, strict=True):
            expect(cell).to_have_text(value)
    screenshot(pit, "admin-ratings")

    assert errors == []
    for context in (staff, dealer_context, *players):
        context.close()
