"""The automatic tables' dealing scene (issue 19): the cards of a coup come out of the shoe to their hand's spot and
turn over, large (at least CARD_HEIGHT px tall), as the table's `card` events say; a page opened mid-coup shows the
cards dealt at once; with reduced motion nothing slides or turns; the player who shows a hand (its highest bettor)
squeezes its cards by dragging, and a card left alone turns by itself. Screenshots at each size; no console error."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, WebSocketRoute, expect

from tests.browser.conftest import players_created, screenshot, sign_in, wait_for_betting
from tests.browser.test_table_page import chip

pytestmark = pytest.mark.browser

SIZES = {
    "1440x900": {"viewport": {"width": 1440, "height": 900}},
    "390x844": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "844x390": {"viewport": {"width": 844, "height": 390}, "is_mobile": True, "has_touch": True},
}
# The cards' least height, px: large on a desktop, as large as the one-screen layouts allow on a phone.
CARD_HEIGHT = {"1440x900": 120, "390x844": 68, "844x390": 66}
INDEX_FONT = 13  # px: the corner indices' least size

WATCHER = "scenewatch"  # watches the deal, bets nothing
SQUEEZER = "zqsqueeze"  # the Player hand's highest bettor on nc2: shown by "zq***"

# Records in the page whether a card ever slid or turned (an animation or transition in the hands).
MOTION_WATCH = """
window.sceneMotion = [];
const look = () => {
  for (const animation of document.getAnimations()) {
    const target = animation.effect && animation.effect.target;
    if (target && target.closest && target.closest(".scene-card")) {
      window.sceneMotion.push(animation.animationName || animation.transitionProperty || "?");
    }
  }
  requestAnimationFrame(look);
};
requestAnimationFrame(look);
"""


class Table:
    """A player's table page at one size, with the `card` and `result` events its socket received."""

    def __init__(self, context: BrowserContext, username: str, code: str) -> None:
        self.events: list[dict] = []
        self.errors: list[str] = []
        context.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        context.on("weberror", lambda error: self.errors.append(str(error.error)))
        self.page = context.new_page()
        self.page.on("websocket", lambda socket: socket.on("framereceived", self._heard))
        sign_in(self.page, username, f"/tables/{code}/")
        expect(self.page.locator("[data-connection]")).to_have_text("Live")
        expect(self.page.locator('[data-bet="player"]')).to_be_attached()

    def _heard(self, payload) -> None:
        message = json.loads(payload) if isinstance(payload, str) else {}
        if message.get("type") in ("card", "result"):
            self.events.append(message)

    def cards_heard(self, round_id: str) -> list[tuple[int, str, str]]:
        return sorted(
            (event["data"]["position"], event["data"]["hand"], event["data"]["card"])
            for event in self.events
            if event["type"] == "card" and event["data"]["round_id"] == round_id
        )

    def result_heard(self, round_id: str) -> dict:
        return next(e["data"] for e in self.events if e["type"] == "result" and e["data"]["round_id"] == round_id)

    def cards_shown(self) -> list[tuple[int, str, str]]:
        return sorted(
            tuple(card)
            for card in self.page.locator(".scene-card").evaluate_all(
                """slots => slots.map(slot => [
                    Number(slot.dataset.position),
                    slot.closest("[data-cards]").dataset.cards,
                    slot.querySelector(".card").dataset.card,
                ])"""
            )
        )


class HeldCards:
    """The table's socket, whose frames from the server are kept back from a given card's arrival on until
    ``release()``, then passed on in order: a network that slows down at that moment. An automatic table deals a
    card every 0.8 s and a hand's next card turns its card still offered to squeeze, so a test that must take hold
    of a card before its hand's next one comes would race the dealer on a loaded machine."""

    def __init__(self) -> None:
        self.awaited: tuple[str, int] | None = None  # (round_id, position) of the card to hold back from
        self.held: list[str | bytes] = []
        self.socket: WebSocketRoute | None = None

    def route(self, socket: WebSocketRoute) -> None:
        self.socket = socket
        socket.connect_to_server().on_message(self._from_server)

    def hold_from(self, *, round_id: str, position: int) -> None:
        self.awaited = (round_id, position)

    def _from_server(self, message: str | bytes) -> None:
        if self.awaited and not self.held and isinstance(message, str):
            event = json.loads(message)
            data = event.get("data") if isinstance(event, dict) and event.get("type") == "card" else None
            if data and (data.get("round_id"), data.get("position")) == self.awaited:
                self.held.append(message)
                return
        if self.held:
            self.held.append(message)
        else:
            self.socket.send(message)

    def release(self) -> None:
        """Pass on what was kept back, and everything after as it comes."""
        self.awaited = None
        held, self.held = self.held, []
        for message in held:
            self.socket.send(message)


@pytest.fixture
def table_at(browser: Browser, server) -> Iterator:
    """``table_at(size, username, code, reduced_motion=False)``: a signed-in player's table page at that size."""
    players_created(server, WATCHER, SQUEEZER)
    contexts = []

    def make(
        size: str, username: str, code: str, *, reduced_motion: bool = False, held: HeldCards | None = None
    ) -> Table:
        options = dict(SIZES[size], reduced_motion="reduce" if reduced_motion else "no-preference")
        context = browser.new_context(base_url=server.url, **options)
        contexts.append(context)
        if reduced_motion:
            context.add_init_script(MOTION_WATCH)
        if held is not None:
            context.route_web_socket(re.compile(rf"/ws/tables/{code}/$"), held.route)
        return Table(context, username, code)

    yield make
    for context in contexts:
        context.close()


def wait_for_result(page: Page) -> None:
    page.wait_for_function(
        "() => ['player', 'banker', 'tie'].includes(document.querySelector('[data-result]').dataset.winner)",
        timeout=30_000,
    )


def face_sizes(page: Page) -> list[dict]:
    """The upright cards' (the first four) faces and their indices, in px."""
    return page.locator(".scene-card:not(.scene-card--third) .card").evaluate_all(
        """faces => faces.map(face => ({
            width: face.getBoundingClientRect().width,
            height: face.getBoundingClientRect().height,
            index: parseFloat(getComputedStyle(face.querySelector('.scene-rank')).fontSize),
        }))"""
    )


@pytest.mark.parametrize("size", list(SIZES))
def test_a_coup_is_dealt_from_the_shoe_face_up_on_its_spots(table_at, size):
    table = table_at(size, WATCHER, "pb1")
    page = table.page
    expect(page.locator("[data-scene-shoe]")).to_be_visible()
    expect(page.locator("[data-video]")).to_have_count(0)
    round_id = wait_for_betting(page, 1)
    # A card leaves the shoe: it slides to its spot, then turns over.
    page.wait_for_selector(".scene-card--sliding", timeout=30_000)
    page.wait_for_function(
        "() => document.querySelectorAll('.scene-card[data-face=\"up\"]').length >= 3", timeout=10_000
    )
    screenshot(page, f"scene-dealing-{size}")
    wait_for_result(page)
    page.wait_for_timeout(600)  # the last card's turn
    screenshot(page, f"scene-result-{size}")

    heard = table.cards_heard(round_id)
    assert 4 <= len(heard) <= 6
    assert table.cards_shown() == heard
    faces = page.locator(".scene-card").evaluate_all("slots => slots.map(slot => slot.dataset.face)")
    assert faces == ["up"] * len(heard)
    third = page.locator(".scene-card--third")
    assert third.count() == len(heard) - 4
    for slot in third.all():  # sideways
        box = slot.bounding_box()
        assert box["width"] > box["height"]
    for face in face_sizes(page):
        assert face["height"] >= CARD_HEIGHT[size] and face["width"] >= CARD_HEIGHT[size] / 1.45
        assert face["index"] >= INDEX_FONT
    result = table.result_heard(round_id)
    expect(page.locator('[data-total="player"]')).to_have_text(str(result["player_total"]))
    expect(page.locator('[data-total="banker"]')).to_have_text(str(result["banker_total"]))
    # Suits in their colours: hearts and diamonds red, spades and clubs black.
    colours = page.locator(".scene-card .card").evaluate_all(
        "faces => faces.map(face => [face.dataset.card[1], getComputedStyle(face).color])"
    )
    for suit, colour in colours:
        assert (colour == "rgb(200, 16, 46)") == (suit in "HD")
    # The burn card and the shoe's news are still in the game info.
    expect(page.locator('[data-info="shoe"]')).to_contain_text("Burn card")

    # Reloaded mid-coup: the cards already dealt are there at once, not dealt again.
    wait_for_betting(page, 1)
    page.wait_for_function("() => document.querySelectorAll('.scene-card').length >= 2", timeout=30_000)
    page.reload()
    page.wait_for_function("() => document.querySelector('.scene-card[data-position=\"0\"]')")
    first = page.locator('.scene-card[data-position="0"]')
    if page.locator("[data-result]").get_attribute("data-winner") in ("", None):
        expect(first).to_have_attribute("data-revealed", "shown")
        expect(first).to_have_attribute("data-face", "up")
    assert table.errors == []


def test_with_reduced_motion_the_cards_are_just_shown(table_at):
    table = table_at("1440x900", WATCHER, "pb1", reduced_motion=True)
    page = table.page
    round_id = wait_for_betting(page, 1)
    page.evaluate("window.sceneMotion = []")
    wait_for_result(page)
    assert table.cards_shown() == table.cards_heard(round_id)
    faces = page.locator(".scene-card").evaluate_all("slots => slots.map(slot => slot.dataset.face)")
    assert set(faces) == {"up"}
    assert page.locator(".scene-card--sliding").count() == 0
    assert page.evaluate("window.sceneMotion") == []
    assert table.errors == []


@pytest.mark.parametrize("size", ["1440x900", "390x844"])
def test_the_player_hand_s_highest_bettor_squeezes_its_cards(table_at, size):
    second_card = HeldCards()
    table = table_at(size, SQUEEZER, "nc2", held=second_card)
    page = table.page
    round_id = wait_for_betting(page, 5)
    second_card.hold_from(round_id=round_id, position=2)  # the Player hand's second card waits for the first's drag
    chip(page, 25).click()
    page.locator('[data-bet="player"]').click()
    page.get_by_role("button", name="Confirm", exact=True).click()
    expect(page.locator("[data-bet-message]")).to_contain_text("Bets accepted")
    expect(page.locator('[data-shown-by="player"]')).to_have_text("Shown by zq***", timeout=20_000)

    # The Player hand's first card comes face down, offered to squeeze; the Banker's cards just turn over.
    card = page.locator('.scene-card[data-position="0"]')
    expect(card).to_have_class(re.compile("scene-card--squeeze"), timeout=20_000)
    expect(card).to_have_attribute("data-face", "down")
    expect(card.locator(".scene-hint")).to_have_text("Drag to squeeze")
    expect(card).not_to_have_class(re.compile("scene-card--sliding"))  # on its spot
    card.scroll_into_view_if_needed()  # a phone's page may have scrolled to Confirm: the whole card in sight
    box = card.bounding_box()
    corner = (box["x"] + box["width"] - 4, box["y"] + box["height"] - 4)
    page.mouse.move(*corner)
    page.mouse.down()
    # The hand's second card comes while the first is in hand: the first turns only when let go, and stays on its
    # spot under the finger (a hand's cards are centred on the felt: it kept the second card's spot free).
    second_card.release()
    expect(page.locator('.scene-card[data-position="2"]')).to_be_attached()
    page.mouse.move(corner[0] - box["width"] * 0.35, corner[1] - box["height"] * 0.35, steps=4)
    assert card.bounding_box() == box
    assert float(card.get_attribute("data-peel")) > 0.5  # peeled: part of its face shows, it is not turned yet
    assert card.get_attribute("data-face") == "down"
    assert "polygon" in card.locator(".scene-back-face").evaluate("back => back.style.clipPath")
    # What shows at the peeled corner is the card's face; at the opposite corner, still its back.
    seen = page.evaluate(
        """([x, y, width, height]) => [[x + width - 8, y + height - 8], [x + 8, y + 8]].map(
            ([left, top]) => document.elementFromPoint(left, top).closest(".card, .scene-back")?.className
        )""",
        [box["x"], box["y"], box["width"], box["height"]],
    )
    assert "card" in seen[0].split() and "scene-back" in seen[1].split(), seen
    screenshot(page, f"scene-squeeze-{size}")
    page.mouse.move(corner[0] - box["width"] * 0.8, corner[1] - box["height"] * 0.8, steps=4)
    page.mouse.up()
    expect(card).to_have_attribute("data-face", "up")
    expect(card).to_have_attribute("data-revealed", "squeeze")
    expect(card).not_to_have_class(re.compile("scene-card--squeeze"))

    # Not squeezed, the Player hand's second card turns by itself; the Banker's never waited for anyone.
    second = page.locator('.scene-card[data-position="2"]')
    expect(second).to_have_attribute("data-revealed", "auto", timeout=15_000)
    expect(second).to_have_attribute("data-face", "up")
    banker = page.locator('[data-cards="banker"] .scene-card').first
    expect(banker).to_have_attribute("data-face", "up")
    assert "scene-card--squeeze" not in (banker.get_attribute("class") or "")
    wait_for_result(page)
    page.wait_for_timeout(600)
    screenshot(page, f"scene-squeeze-result-{size}")
    assert table.errors == []
