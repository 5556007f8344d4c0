"""A partner's page, on another origin, frames a launched player: the player bets from inside the frame
and is paid, the money only ever in the partner's (fake) seamless wallet."""

from __future__ import annotations

import json
import threading
import urllib.request
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import ConsoleMessage, FrameLocator, expect

from tests.browser.conftest import DESKTOP, Server, screenshot
from tests.partners.fake_wallet import SECRET, FakeWallet

pytestmark = pytest.mark.browser

SETUP = """
from partners import services
from partners.models import Partner
from partners.wallet_settings import partner_wallet_set

partner = services.partner_create(code="acme", name="Acme Casino")
services.partner_update(partner=partner, changes={{"frame_origins": "{origin}"}})
partner_wallet_set(partner=partner, mode="seamless", wallet_url="{wallet_url}", wallet_secret="{secret}")
print(services.partner_api_key_create(partner=partner, name="browser").key)
"""


class PartnerSite:
    """The partner's own page (another origin): our table in an iframe."""

    def __init__(self) -> None:
        self.launch_url = ""
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                page = (
                    "<!doctype html><title>Acme Casino</title><h1>Acme Casino</h1>"
                    f'<iframe title="Punto" src="{site.launch_url}" width="1200" height="760"></iframe>'
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def launch(server: Server, key: str, return_url: str) -> str:
    body = {"player_id": "u-42", "nickname": "Ann", "currency": "EUR", "table": "pb1", "return_url": return_url}
    request = urllib.request.Request(
        f"{server.url}/api/v1/sessions/",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["launch_url"]


def test_a_launched_player_bets_and_is_paid_inside_the_partners_frame(server, new_context):
    site = PartnerSite()
    with FakeWallet({"u-42": "500.00"}) as wallet:
        output = server.manage("shell", "-c", SETUP.format(origin=site.origin, wallet_url=wallet.url, secret=SECRET))
        key = output.strip().splitlines()[-1]  # after the shell's own notice
        site.launch_url = launch(server, key, return_url=f"{site.origin}/lobby")
        page = new_context().new_page()
        problems: list[str] = []
        page.on("console", lambda message: _console_problem(message, problems))
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(f"{site.origin}/")
        frame: FrameLocator = page.frame_locator("iframe")
        expect(frame.locator("[data-connection]")).to_have_text("Live")
        expect(frame.locator("[data-balance]")).to_have_text("500.00")  # asked of the partner's wallet
        expect(frame.locator("[data-exit]")).to_have_attribute("href", f"{site.origin}/lobby")

        for _ in range(12):  # bet on Banker until it wins (46% a coup: 12 coups all lost is 1 in 1,600)
            _wait_for_betting(frame)
            frame.get_by_role("radio", name="Chip 25", exact=True).click()
            frame.locator('[data-bet="banker"]').click()
            frame.get_by_role("button", name="Confirm", exact=True).click()
            expect(frame.locator("[data-bet-message]")).to_have_text("Bets accepted: Banker 25.00")
            expect(frame.locator("#table-app")).to_have_attribute("data-phase", "result", timeout=30_000)
            winner = frame.locator("[data-result]").get_attribute("data-winner")
            _wait_for(lambda: len(wallet.operations("credit")) == len(wallet.operations("debit")), page)
            if winner == "banker":
                break
        else:
            pytest.fail("Banker did not win in 12 coups")
        credit = wallet.operations("credit")[-1]
        assert Decimal(credit["amount"]) == Decimal("48.75")  # 25 back and 23.75 won (5% commission)
        debits = sum(Decimal(body["amount"]) for body in wallet.operations("debit"))
        credits = sum(Decimal(body["amount"]) for body in wallet.operations("credit"))
        assert wallet.balances["u-42"] == Decimal("500.00") - debits + credits
        expect(frame.locator("[data-balance]")).to_have_text(f"{wallet.balances['u-42']:,.2f}")
        assert all(valid for _, _, valid in wallet.requests)
        screenshot(page, "partner-frame-launched")
        assert problems == []


def _console_problem(message: ConsoleMessage, problems: list[str]) -> None:
    if message.type in ("error", "warning") and "favicon" not in message.text:
        problems.append(f"{message.type}: {message.text}")


def _wait_for_betting(frame: FrameLocator, seconds_left: float = 6) -> None:
    """A coup taking bets for ``seconds_left`` more seconds at least: chips placed later could be sent by the
    page itself just before the deadline (seed 001), leaving nothing for Confirm."""
    app, timer = frame.locator("#table-app"), frame.locator("[data-timer]")
    for _ in range(400):
        if (
            app.get_attribute("data-phase") == "betting"
            and float(timer.get_attribute("data-seconds-left") or 0) >= seconds_left
        ):
            return
        app.page.wait_for_timeout(100)
    raise AssertionError("no coup took bets long enough")


def _wait_for(condition, page, timeout_ms: int = 20_000) -> None:
    waited = 0
    while not condition():
        assert waited < timeout_ms, "timed out"
        page.wait_for_timeout(100)
        waited += 100


PARTNER_WITHOUT_FRAME = """
from partners import services

partner = services.partner_create(code="noscript", name="No Script Casino")
print(services.partner_api_key_create(partner=partner, name="browser").key)
"""


def test_a_launch_link_opened_without_script_waits_for_the_player_s_button(server, browser):
    """What a link preview sees: the page, which uses nothing; the player's button then opens the game."""
    key = server.manage("shell", "-c", PARTNER_WITHOUT_FRAME).strip().splitlines()[-1]
    url = launch(server, key, return_url="https://casino.example/lobby")
    page = browser.new_context(base_url=server.url, java_script_enabled=False, viewport=DESKTOP).new_page()
    page.goto(url)
    expect(page.get_by_role("heading", level=1)).to_have_text("Opening the game…")
    screenshot(page, "launch-no-script-desktop")
    page.goto(url)  # fetched again, as previews do: still unused
    page.get_by_role("button", name="Continue to the game").click()
    expect(page).to_have_url(f"{server.url}/tables/pb1/")
    page.goto(url)
    expect(page.get_by_role("heading", level=1)).to_have_text("The game could not open")
    expect(page.locator("[data-launch-refused]")).to_have_text(
        "This game link was already used. Go back to the casino and open the game again."
    )
