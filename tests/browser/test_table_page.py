"""The player's table page in Chromium against a real server whose automatic tables deal by themselves."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, WebSocketRoute, expect

from tests.browser.conftest import SCREENSHOTS, open_table, screenshot, sign_in, wait_for_betting

pytestmark = pytest.mark.browser

RESULT = re.compile(r"^(Player wins|Banker wins|Tie) \d to \d")
ROUND = '[data-info="round"]'


def chip(page: Page, value: int) -> Locator:
    return page.get_by_role("radio", name=f"Chip {value}", exact=True)


def dealt_cards(page: Page) -> list[str]:
    return page.locator("[data-cards] .card").evaluate_all("cards => cards.map(card => card.dataset.card)")


def same_coup(page: Page, other: Page) -> bool:
    return (page.locator(ROUND).inner_text(), dealt_cards(page)) == (
        other.locator(ROUND).inner_text(),
        dealt_cards(other),
    )


def wait_until(page: Page, condition: Callable[[], bool], timeout: float = 20) -> None:
    """Poll a condition over several pages (Playwright's expect looks at one); the page keeps
    Playwright's event loop turning meanwhile (a time.sleep would stall the WebSocket routes)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        page.wait_for_timeout(100)


def long_press(page: Page, target: Locator) -> None:
    """A finger held on the target (a real touch through the DevTools protocol)."""
    box = target.bounding_box()
    point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    devtools = page.context.new_cdp_session(page)
    devtools.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
    page.wait_for_timeout(700)
    devtools.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_two_players_follow_one_coup_one_bets_chats_and_is_paid(new_context):
    alice = open_table(new_context(), "alice", "pb1")
    bob = open_table(new_context(), "bob", "pb1")
    lobby = new_context().new_page()
    lobby.goto("/")

    round_id = wait_for_betting(alice)
    expect(bob.locator(ROUND)).to_have_text(round_id)
    expect(alice.locator('[data-info="table"]')).to_have_text("PB1")
    coups_before = int(alice.locator(".stat--coups dd").inner_text())

    # Chips: click adds the selected chip, right-click takes one off, Undo takes back the last chip.
    player, tie = alice.locator('[data-bet="player"]'), alice.locator('[data-bet="tie"]')
    chip(alice, 5).click()
    for _ in range(3):
        player.click()
    expect(player.locator(".spot-stake")).to_have_text("15")
    player.click(button="right")
    expect(player.locator(".spot-stake")).to_have_text("10")
    chip(alice, 1).click()
    tie.click()
    expect(alice.locator("[data-stake-total]")).to_have_text("0.00 + 11.00 to confirm")
    alice.get_by_role("button", name="Undo", exact=True).click()
    expect(tie.locator(".spot-stake")).to_be_hidden()
    expect(alice.locator("[data-balance]")).to_have_text("1,000.00")
    alice.get_by_role("button", name="Confirm", exact=True).click()
    expect(alice.locator("[data-bet-message]")).to_have_text("Bets accepted: Player 10.00")
    expect(alice.locator("[data-balance]")).to_have_text("990.00")
    expect(alice.locator("[data-stake-total]")).to_have_text("10.00")
    crowd = bob.locator('[data-bet="player"] .spot-crowd')
    expect(crowd.locator("> span:not(.spot-crowd-bar)")).to_have_text(["10", "100%", "1"])  # total, share, bettors

    chat = bob.get_by_role("toolbar", name="Table tools").get_by_role("button", name=re.compile("^Chat"))
    chat.click()  # the chat is a drawer at every size (issue 32: the table on one screen)
    bob.get_by_label("Message to the table").fill("<b>good luck</b>")
    bob.get_by_role("button", name="Send", exact=True).click()
    bob.get_by_role("button", name="Close the chat").click()
    message = alice.locator("[data-chat-log] li").last
    expect(message).to_contain_text("bo***")  # a display name: never the username
    expect(message.locator(".chat-text")).to_have_text("<b>good luck</b>")
    expect(alice.locator("[data-chat-log] b")).to_have_count(0)
    screenshot(alice, "table-desktop-betting")

    # No more bets: the board locks; the highest bet on each hand shows it.
    for page in (alice, bob):
        expect(page.locator('[data-shown-by="player"]')).to_have_text("Shown by al***")
        expect(page.locator('[data-shown-by="banker"]')).to_have_text("Shown by the dealer")
    expect(alice.locator("[data-board]")).to_have_attribute("data-locked", "true")
    expect(alice.get_by_role("button", name="Confirm", exact=True)).to_be_disabled()

    # The result stays up about 3 s before the next coup: read it at once, on both screens and the lobby.
    result = alice.locator("[data-result]")
    expect(result).to_have_text(RESULT, timeout=20_000)
    winner, cards = result.get_attribute("data-winner"), dealt_cards(alice)
    totals = {hand: alice.locator(f'[data-total="{hand}"]').inner_text() for hand in ("player", "banker")}
    expect(bob.locator("[data-result]")).to_have_text(result.inner_text())
    assert dealt_cards(bob) == cards and 4 <= len(cards) <= 6
    expect(bob.locator(ROUND)).to_have_text(round_id)
    first, second = (totals["player"], totals["banker"]) if winner == "player" else (totals["banker"], totals["player"])
    lobby_status = {"player": "Player wins", "banker": "Banker wins", "tie": "Tie"}[winner] + f" {first}–{second}"
    expect(lobby.locator('[data-lobby-table="pb1"] [data-status]')).to_have_text(lobby_status)
    headline, balance = {
        "player": ("You won 10.00 EUR", "1,010.00"),
        "banker": ("No win: you lost 10.00 EUR", "990.00"),
        "tie": ("You broke even: 10.00 EUR back", "1,000.00"),
    }[winner]
    expect(alice.locator(".my-result-headline")).to_have_text(headline)
    screenshot(alice, "table-desktop-result")

    # The payout and the roads stay.
    expect(alice.locator("[data-balance]")).to_have_text(balance)
    expect(bob.locator("[data-balance]")).to_have_text("1,000.00")
    expect(bob.locator("[data-my-result]")).to_be_empty()
    coups = str(coups_before + 1)
    expect(alice.locator(".stat--coups dd")).to_have_text(coups)
    expect(bob.locator(".road--bead-plate svg")).to_have_attribute(
        "aria-label", re.compile(f"^Bead Plate: {coups} coups")
    )

    alice.get_by_role("button", name="History", exact=True).click()
    history = alice.get_by_role("dialog", name="Game history")
    rounds = history.locator(".history-round").filter(has_text=round_id)
    expect(rounds).to_have_count(2)
    # "Your bets" come first, then the table's latest results.
    expect(rounds.first).to_contain_text("Player 10.00 EUR")


def test_a_phone_bets_by_touch_and_sees_its_result(new_context):
    page = open_table(new_context(phone=True), "carol", "pb1")
    wait_for_betting(page)
    banker = page.locator('[data-bet="banker"]')
    chip(page, 25).tap()
    banker.tap()
    banker.tap()
    expect(banker.locator(".spot-stake")).to_have_text("50")
    long_press(page, banker)
    expect(banker.locator(".spot-stake")).to_have_text("25")
    chip(page, 5).tap()
    page.locator('[data-bet="player_pair"]').tap()
    page.get_by_role("button", name="Confirm", exact=True).tap()
    expect(page.locator("[data-bet-message]")).to_have_text("Bets accepted: Banker 25.00, Player Pair 5.00")
    expect(page.locator("[data-balance]")).to_have_text("970.00")
    screenshot(page, "table-phone-betting")

    expect(page.locator("[data-result]")).to_have_text(RESULT, timeout=25_000)
    expect(page.locator(".my-result-headline")).to_have_text(re.compile(r"^(You won|No win|You broke even)"))
    expect(page.locator(".my-result-bets li")).to_have_count(2)
    screenshot(page, "table-phone-result")


def test_refused_bets_say_why_and_change_nothing(new_context):
    page = open_table(new_context(), "bob", "nc2")
    balance = page.locator("[data-balance]")
    expect(balance).not_to_have_text("")
    before = balance.inner_text()
    wait_for_betting(page)
    refusal = page.locator("[data-bet-message]")

    chip(page, 5).click()
    page.locator('[data-bet="player"]').click()
    page.locator('[data-bet="banker"]').click()
    page.get_by_role("button", name="Confirm", exact=True).click()
    expect(refusal).to_have_text("You may not bet both Player and Banker in one coup")
    expect(refusal).to_have_attribute("data-kind", "error")

    page.get_by_role("button", name="Remove", exact=True).click()
    expect(page.locator("[data-stake-total]")).to_have_text("0.00")
    chip(page, 100).click()
    page.locator('[data-bet="tie"]').click()
    page.locator('[data-bet="tie"]').click()
    page.get_by_role("button", name="Confirm", exact=True).click()
    expect(refusal).to_have_text("Tie: 200.00 is over the maximum of 100.00; at most 100.00 more can be accepted")
    expect(balance).to_have_text(before)
    expect(page.locator("[data-stake-total]")).to_have_text("0.00 + 200.00 to confirm")


def test_a_late_bet_is_refused_in_the_player_s_words_without_the_round_id(new_context):
    """Chips confirmed as betting closes: the server's refusal (``betting_closed``, whose English message names the
    round and its state for partners) reads as the page's own sentence (static/js/errors.js)."""
    page = new_context().new_page()
    held: list[tuple[WebSocketRoute, str]] = []  # the bet frames kept back until betting has closed
    server_messages: list[str] = []

    def route(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()
        server.on_message(lambda message: (server_messages.append(message), socket.send(message)))
        socket.on_message(
            lambda message: held.append((server, message)) if '"bet"' in message else server.send(message)
        )

    page.route_web_socket(re.compile(r"/ws/tables/nc2/$"), route)
    sign_in(page, "carol", "/tables/nc2/")
    expect(page.locator("[data-connection]")).to_have_text("Live")
    round_id = wait_for_betting(page, seconds_left=3)
    chip(page, 5).click()
    page.locator('[data-bet="banker"]').click()
    page.get_by_role("button", name="Confirm", exact=True).click()
    wait_until(page, lambda: bool(held))
    page.wait_for_function("() => document.getElementById('table-app').dataset.phase !== 'betting'", timeout=30_000)
    for server, message in held:
        server.send(message)

    refusal = page.locator("[data-bet-message]")
    expect(refusal).to_have_text("No more bets: betting on this coup is closed")
    expect(refusal).to_have_attribute("data-kind", "error")
    wait_until(page, lambda: any("bet_rejected" in message for message in server_messages))
    rejected = next(message for message in server_messages if "bet_rejected" in message)
    assert '"code": "betting_closed"' in rejected and round_id in rejected  # the server's words name the round
    assert round_id not in refusal.inner_text() and "no_more_bets" not in page.locator("body").inner_text()
    refusal.scroll_into_view_if_needed()
    page.screenshot(path=SCREENSHOTS / "refusal-late-bet-desktop.png")  # the page where the refusal shows


def test_a_dropped_connection_reconnects_and_catches_up(new_context):
    reference = open_table(new_context(), "alice", "pb1")
    page = new_context().new_page()
    connections: list[WebSocketRoute] = []
    deaf = threading.Event()  # set: the first connection passes nothing on any more, like a dead link

    def route(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()
        connections.append(socket)
        if len(connections) == 1:
            server.on_message(lambda message: None if deaf.is_set() else socket.send(message))

    page.route_web_socket(re.compile(r"/ws/tables/pb1/$"), route)
    sign_in(page, "carol", "/tables/pb1/")
    expect(page.locator("[data-connection]")).to_have_text("Live")
    wait_until(page, lambda: same_coup(page, reference))

    deaf.set()
    heard = (page.locator(ROUND).inner_text(), dealt_cards(page))
    wait_until(page, lambda: (reference.locator(ROUND).inner_text(), dealt_cards(reference)) != heard)
    assert (page.locator(ROUND).inner_text(), dealt_cards(page)) == heard  # the news did not get through
    connections[0].close(code=4000, reason="dropped by the test")
    wait_until(page, lambda: len(connections) == 2 and same_coup(page, reference))
    expect(page.locator("[data-connection]")).to_have_text("Live")


def test_limits_sound_and_full_screen(new_context):
    page = open_table(new_context(), "carol", "pb1")
    page.get_by_role("button", name="Limits", exact=True).click()
    limits = page.get_by_role("dialog", name="Limits")
    expect(limits.locator("tbody tr").filter(has_text="Tie").locator("td")).to_have_text(
        ["Tie", "8:1", "1.00", "100.00", "500.00"]
    )
    expect(limits.locator("tbody tr").filter(has_text="Banker").first.locator("td")).to_have_text(
        ["Banker", "0.95:1", "1.00", "1,000.00", "—"]
    )
    expect(limits).to_contain_text("Maximum difference between Banker and Player bets at the table: 5,000.00")
    page.keyboard.press("Escape")
    expect(limits).to_be_hidden()

    sound = page.get_by_role("button", name="Sound", exact=True)
    expect(sound).to_have_attribute("aria-pressed", "true")
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "false")
    page.reload()
    expect(page.get_by_role("button", name="Sound", exact=True)).to_have_attribute("aria-pressed", "false")

    full_screen = page.get_by_role("button", name="Full screen", exact=True)
    full_screen.click()
    expect(full_screen).to_have_attribute("aria-pressed", "true")
    full_screen.click()
    expect(full_screen).to_have_attribute("aria-pressed", "false")


def test_bets_go_over_the_socket_late_chips_are_sent_by_themselves_and_instant_bets(new_context):
    """Seed 001: at "no more bets" the bets on the board are sent; Evolution's "instant bets" preference."""
    page = new_context().new_page()
    posted: list[str] = []
    sent: list[str] = []
    page.on("request", lambda request: posted.append(request.url) if request.method == "POST" else None)
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    sign_in(page, "bob", "/tables/nc2/")
    expect(page.locator("[data-connection]")).to_have_text("Live")
    message = page.locator("[data-bet-message]")

    wait_for_betting(page)
    chip(page, 5).click()
    page.locator('[data-bet="player"]').click()
    page.get_by_role("button", name="Confirm", exact=True).click()
    expect(message).to_have_text("Bets accepted: Player 5.00")
    assert any('"type": "bet"' in frame or '"type":"bet"' in frame for frame in sent)
    assert not [url for url in posted if "/bets/" in url]  # over the socket, not HTTP

    # Chips left unconfirmed: a banner counts down, then they are placed by themselves before the deadline.
    first_round = page.locator(ROUND).inner_text()
    page.wait_for_function(
        "(round) => document.querySelector('[data-info=\"round\"]').textContent !== round",
        arg=first_round,
        timeout=40_000,
    )
    wait_for_betting(page)
    expect(page.locator("[data-my-result]")).to_be_empty()  # the last round's result cleared as this one opens
    chip(page, 1).click()
    page.locator('[data-bet="player"]').click()
    page.locator('[data-bet="player"]').click()
    banner = page.locator("[data-auto-send]")
    expect(banner).to_be_visible(timeout=15_000)
    expect(banner).to_contain_text("Unconfirmed chips will be placed in")
    screenshot(page, "table-auto-send-banner")
    expect(message).to_have_text("Bets accepted: Player 2.00", timeout=10_000)
    expect(page.locator("[data-stake-total]")).to_have_text("2.00")

    # Instant bets: each chip is placed as it is put down, with no Confirm.
    instant = page.get_by_role("button", name="Instant bets", exact=True)
    instant.click()
    expect(instant).to_have_attribute("aria-pressed", "true")
    wait_for_betting(page)
    chip(page, 10).click()
    page.locator('[data-bet="tie"]').click()
    expect(message).to_have_text("Bets accepted: Tie 10.00")
    expect(page.locator("[data-stake-total]")).to_have_text("10.00")
    page.reload()
    expect(page.get_by_role("button", name="Instant bets", exact=True)).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="Instant bets", exact=True).click()
