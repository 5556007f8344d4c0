"""The online player's squeeze at a dealer table (issue 18, seed 000 §5.1): live3 with its live video, an online
player the highest bettor on the Player hand; the dealer enters the cards at the console and that player's pages
(one at each size: 1440 x 900, 390 x 844, 844 x 390) get the Player hand's cards face down over the video, to peel
from a corner or turn with Enter, a card left alone turning by itself; the Banker hand's cards come face up. Another
online player, who bet less on Player, sees every card face up as it is entered. A page reloaded mid-coup shows the
cards dealt so far face up and offers the next; with reduced motion (the phone on its side) the cards turn at once.
Screenshots at each size; no console error."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from tests.browser.conftest import (
    Server,
    open_table,
    players_created,
    screenshot,
    shoe_start_at_the_console,
    staff_sign_in,
    wait_for_betting,
)
from tests.browser.test_dealer_console import online_bet, said
from tests.browser.test_table_layouts import SIZES
from tests.browser.test_video import SIZE_NAMES, off_screen, stream  # noqa: F401 (the live video, a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("stream")]

TABLET = {"width": 1024, "height": 768}
SQUEEZER = "lvsqueeze"  # shows the Player hand: "lv***"
WATCHER = "lvwatch"  # bets less on Player: shows nothing
# Entered by the dealer: Player 5, Banker 6; the Player draws a 7 (2), the Banker draws on 6 against it (4).
CARDS = (("2S", "player"), ("4H", "banker"), ("3D", "player"), ("2C", "banker"), ("7C", "player"), ("8S", "banker"))


def coup_opened(dealer: Page) -> None:
    """live3 takes bets on a new coup, whatever an earlier test left: a shoe played out is finished, a new one
    started."""
    finish = dealer.get_by_role("button", name="Finish the shoe")
    if finish.is_visible():
        finish.click()
        said(dealer, "finished")
    if dealer.get_by_role("button", name=re.compile("start the shoe")).is_visible():
        shoe_start_at_the_console(dealer)
        said(dealer, "in play")
    dealer.get_by_role("button", name="Open a coup for betting").click()
    said(dealer, "bets, please.")


def card_entered(dealer: Page, card: str, hand: str) -> None:
    """Tapped in on the card pad; the console's answer is checked later (``said``), the players' pages first."""
    dealer.get_by_role("radio", name=hand.capitalize(), exact=True).check()
    dealer.locator(f'[data-rank="{card[0]}"]').click()
    dealer.locator(f'[data-suit="{card[1]}"]').click()


def offered(page: Page, position: int) -> Locator:
    """The card at ``position``, face down and offered to squeeze."""
    card = page.locator(f'.scene-card[data-position="{position}"]')
    expect(card).to_have_class(re.compile("scene-card--squeeze"))
    expect(card).to_have_attribute("data-face", "down")
    return card


def peel(page: Page, card: Locator, size: str, total_meanwhile: str) -> None:
    """Drag from the card's bottom right corner on the screen: its face shows there, its back at the opposite
    corner, still face down, the Player's total ``total_meanwhile`` (a screenshot); on past the threshold: it
    turns over."""
    card.scroll_into_view_if_needed()
    hint = card.locator(".scene-hint").bounding_box()  # wholly on the screen, a first card's at its edge too
    assert hint["x"] >= 0 and hint["x"] + hint["width"] <= page.viewport_size["width"], hint
    box = card.bounding_box()
    corner = (box["x"] + box["width"] - 4, box["y"] + box["height"] - 4)
    page.mouse.move(*corner)
    page.mouse.down()
    page.mouse.move(corner[0] - box["width"] * 0.35, corner[1] - box["height"] * 0.35, steps=4)
    assert float(card.get_attribute("data-peel")) > 0.5
    assert card.get_attribute("data-face") == "down"
    seen = page.evaluate(
        """([x, y, width, height]) => [[x + width - 6, y + height - 6], [x + 6, y + 6]].map(
            ([left, top]) => document.elementFromPoint(left, top).closest(".card, .scene-back")?.className
        )""",
        [box["x"], box["y"], box["width"], box["height"]],
    )
    assert "card" in seen[0].split() and "scene-back" in seen[1].split(), seen
    expect(page.locator('[data-total="player"]')).to_have_text(total_meanwhile)  # held, it never turns by itself
    screenshot(page, f"dealer-squeeze-{size}")
    assert off_screen(page) == [], f"{size}: not on one screen"
    page.mouse.move(corner[0] - box["width"] * 0.8, corner[1] - box["height"] * 0.8, steps=4)
    page.mouse.up()
    expect(card).to_have_attribute("data-revealed", "squeeze")
    expect(card).to_have_attribute("data-face", "up")
    expect(card).not_to_have_class(re.compile("scene-card--squeeze"))


def held(page: Page, card: Locator) -> None:
    """Peeled a little from its bottom right corner and held there (the pointer stays down)."""
    box = card.bounding_box()
    corner = (box["x"] + box["width"] - 4, box["y"] + box["height"] - 4)
    page.mouse.move(*corner)
    page.mouse.down()
    page.mouse.move(corner[0] - box["width"] * 0.3, corner[1] - box["height"] * 0.3, steps=3)
    assert card.get_attribute("data-face") == "down"


def turned_by_itself(page: Page, position: int) -> None:
    card = page.locator(f'.scene-card[data-position="{position}"]')
    expect(card).to_have_attribute("data-revealed", "auto", timeout=15_000)
    expect(card).to_have_attribute("data-face", "up")


def face_up_as_ever(page: Page, card: str, hand: str) -> None:
    """A card shown as at any dealer table: face up, no squeeze."""
    expect(page.locator(f'[data-cards="{hand}"] > .card[data-card="{card}"]')).to_be_visible()


def test_the_player_hand_s_highest_online_bettor_squeezes_the_cards_the_dealer_enters(browser: Browser, server: Server):
    players_created(server, SQUEEZER, WATCHER)
    errors: list[str] = []
    contexts: list[BrowserContext] = []

    def context_for(**options) -> BrowserContext:
        context = browser.new_context(base_url=server.url, **options)
        context.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        context.on("weberror", lambda error: errors.append(str(error.error)))
        contexts.append(context)
        return context

    try:
        dealer = staff_sign_in(context_for(viewport=TABLET, has_touch=True), server, "dealer", "/console/live3/")
        # The phone on its side with reduced motion: its cards turn at once.
        motion = {"phone-landscape": {"reduced_motion": "reduce"}}
        mine = {
            SIZE_NAMES[size]: open_table(context_for(**options, **motion.get(size, {})), SQUEEZER, "live3")
            for size, options in SIZES.items()
        }
        desktop, upright, sideways = mine["1440x900"], mine["390x844"], mine["844x390"]
        watcher = open_table(context_for(**SIZES["desktop"]), WATCHER, "live3")
        for page in (*mine.values(), watcher):
            expect(page.locator(".stage")).to_have_class(re.compile("stage--video"))

        coup_opened(dealer)
        wait_for_betting(desktop, 5)
        online_bet(desktop, 25, "player")
        online_bet(watcher, 10, "player")
        dealer.reload()
        dealer.get_by_role("button", name="No more bets").click()
        expect(dealer.locator(".showing")).to_contain_text(f"Player hand: {SQUEEZER} squeezes online")
        expect(dealer.locator(".showing")).to_contain_text("Banker hand: the dealer shows")
        for page in (*mine.values(), watcher):
            expect(page.locator('[data-shown-by="player"]')).to_have_text("Shown by lv***")
            expect(page.locator('[data-shown-by="banker"]')).to_have_text("Shown by the dealer")

        # The Player's first card: peeled on the phone held upright (its total waits for it), turning by itself on
        # the others.
        card_entered(dealer, *CARDS[0])
        first = offered(upright, 0)
        expect(first.locator(".scene-hint")).to_have_text("Drag to squeeze")
        peel(upright, first, "390x844", total_meanwhile="")
        expect(upright.locator('[data-total="player"]')).to_have_text("2")
        for page in (desktop, sideways):
            turned_by_itself(page, 0)
        expect(sideways.locator('.scene-card[data-position="0"]')).to_have_class(re.compile("scene-card--instant"))
        expect(desktop.locator('.scene-card[data-position="0"]')).not_to_have_class(re.compile("scene-card--instant"))
        face_up_as_ever(watcher, *CARDS[0])
        said(dealer, "2S to the player")

        # The Banker's cards come face up to everyone: the dealer shows that hand.
        card_entered(dealer, *CARDS[1])
        for page in (*mine.values(), watcher):
            face_up_as_ever(page, *CARDS[1])
        said(dealer, "4H to the banker")

        # The second: Enter turns it on the phone held upright, peeled on the desktop, left alone on its side.
        card_entered(dealer, *CARDS[2])
        offered(upright, 2).press("Enter")
        expect(upright.locator('.scene-card[data-position="2"]')).to_have_attribute("data-revealed", "squeeze")
        peel(desktop, offered(desktop, 2), "1440x900", total_meanwhile="2")  # the first card's
        expect(desktop.locator('[data-total="player"]')).to_have_text("5")
        turned_by_itself(sideways, 2)
        face_up_as_ever(watcher, *CARDS[2])
        said(dealer, "3D to the player")
        card_entered(dealer, *CARDS[3])
        face_up_as_ever(watcher, *CARDS[3])
        said(dealer, "2C to the banker")

        # Reloaded mid-coup: the cards so far face up at once; the next one is offered again.
        sideways.reload()
        expect(sideways.locator("[data-connection]")).to_have_text("Live")
        for card, hand in CARDS[:4]:
            face_up_as_ever(sideways, card, hand)
        expect(sideways.locator(".scene-card")).to_have_count(0)

        # The Player's third card: peeled on the phone on its side, held on the desktop, left on the upright phone.
        card_entered(dealer, *CARDS[4])
        held(desktop, offered(desktop, 4))  # and held while the coup ends
        third = offered(sideways, 4)
        expect(third).to_have_class(re.compile("scene-card--third"))
        peel(sideways, third, "844x390", total_meanwhile="5")
        expect(third).to_have_class(re.compile("scene-card--instant"))
        turned_by_itself(upright, 4)
        face_up_as_ever(watcher, *CARDS[4])
        said(dealer, "7C to the player")
        card_entered(dealer, *CARDS[5])
        said(dealer, "8S to the banker")
        dealer.get_by_role("button", name="Resolve the coup").click()
        said(dealer, "Banker wins 4 to 2")  # the winner's total first, as the player's page says it

        # The result and the player's settlement have come (the phone shows them), but the desktop's card is still
        # under the finger: no total counting it, no result, no banner until it is let go; then all of them.
        expect(upright.locator("[data-my-result]")).not_to_be_empty()
        expect(desktop.locator('.scene-card[data-position="4"]')).to_have_attribute("data-face", "down")
        expect(desktop.locator('[data-total="player"]')).to_have_text("5")
        assert desktop.locator("[data-result]").text_content() == ""
        expect(desktop.locator("[data-my-result]")).to_be_empty()
        desktop.mouse.up()
        expect(desktop.locator('.scene-card[data-position="4"]')).to_have_attribute("data-face", "up")
        expect(desktop.locator("[data-my-result]")).not_to_be_empty()

        for size, page in mine.items():
            expect(page.locator("[data-result]")).to_have_attribute("data-winner", "banker")
            faces = page.locator('[data-cards="player"] .scene-card').evaluate_all(
                "slots => slots.map(slot => slot.dataset.face)"
            )
            assert faces == ["up"] * (3 if page is not sideways else 1), (size, faces)
            expect(page.locator('[data-cards="banker"] > .card')).to_have_count(3)
            expect(page.locator('[data-total="player"]')).to_have_text("2")
            screenshot(page, f"dealer-squeeze-result-{size}")
            assert off_screen(page) == [], f"{size}: not on one screen"
        expect(watcher.locator("[data-result]")).to_have_attribute("data-winner", "banker")
        expect(watcher.locator("[data-cards] > .card")).to_have_count(6)
        expect(watcher.locator(".scene-card")).to_have_count(0)
        screenshot(watcher, "dealer-squeeze-watcher-1440x900")
    finally:
        for context in contexts:
            context.close()
    assert errors == []
