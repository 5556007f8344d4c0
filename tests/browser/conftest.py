"""A real Punto for the browser tests, and Debian's Chromium driven by Playwright.

The server is ``manage.py serve --with-tables`` in a subprocess, on a temporary SQLite file
(migrated, static files collected, demo data loaded, the automatic tables' betting time cut
to ``BETTING_SECONDS``), on the embedded default: no Redis, so the table loops, Celery (eager)
and the in-memory channel layer all live in the web process. Its settings are Punto's with
fast password hashing (``server_settings.py``). The tests never touch the
test database (no ``db`` fixture): they see the server only through the browser.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from weakref import WeakKeyDictionary

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "var" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
PASSWORD = "punto-demo"  # demo_data's players: alice, bob, carol, 1000.00 each
BETTING_SECONDS = 8
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

PREPARE = f"""
from django.core.management import call_command
from tables import services
from tables.models import Table

call_command("migrate", interactive=False, verbosity=0)
call_command("collectstatic", interactive=False, verbosity=0)
call_command("demo_data", verbosity=0)
for table in Table.objects.filter(dealing_mode=Table.DealingMode.AUTOMATIC):
    services.table_rules_update(
        table=table, actor=None, changes={{"betting_seconds": {BETTING_SECONDS}}}, reason="browser tests"
    )
"""

TOTP_NOW = (
    "from django.contrib.auth import get_user_model; from casino.sign_in.two_factor import staff_device; "
    "from tests.factories import totp_code_unused; "
    "print(totp_code_unused(staff_device(user=get_user_model().objects.get(username='{username}'))))"
)

expect.set_options(timeout=15_000)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server stopped:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the server did not start in 30 s:\n{log.read_text()}")


@dataclass(frozen=True)
class Server:
    url: str
    env: dict[str, str]  # the server's environment: ``manage`` runs commands on its database

    def manage(self, *args: str) -> str:
        command = [sys.executable, str(ROOT / "manage.py"), *args]
        done = subprocess.run(command, env=self.env, cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {args[0]} failed ({done.returncode}):\n{done.stderr}")
        return done.stdout


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if not Path(CHROMIUM).exists():
        pytest.skip("needs Debian's chromium: bash scripts/install-browser.sh")
    folder = tmp_path_factory.mktemp("punto")
    env = {name: value for name, value in os.environ.items() if name != "REDIS_URL"}
    env.update(
        DJANGO_SETTINGS_MODULE="tests.browser.server_settings",
        DATABASE_URL=f"sqlite:///{folder / 'punto.sqlite3'}",
        DEBUG="false",
        LOG_LEVEL="WARNING",
        WEBHOOK_ALLOW_PRIVATE_TARGETS="true",  # a partner's wallet in the tests listens on 127.0.0.1
        BROWSER_TESTS_STATIC_ROOT=str(folder / "static"),
    )
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "shell", "-c", PREPARE], env=env, cwd=ROOT, check=True, capture_output=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = folder / "server.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            [*manage, "serve", "--with-tables", "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until_up(url, process, log)
        yield Server(url=url, env=env)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="session")
def server_url(server: Server) -> str:
    return server.url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield browser
        browser.close()


# Run by the DevTools protocol in every frame before its own scripts (an init script is not under the page's
# CSP): each violation is reported to the test as it happens, whatever the console says of it.
CSP_VIOLATIONS_REPORTED = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.puntoCspViolation({
    directive: event.effectiveDirective, blocked: event.blockedURI, page: event.documentURI,
    source: event.sourceFile, line: event.lineNumber, sample: event.sample,
  });
}, true);
"""
_PAGE_ERRORS: WeakKeyDictionary[Page, list[str]] = WeakKeyDictionary()


@dataclass
class BrowserProblems:
    """What went wrong in the pages of every browser context a test makes, from each page's creation on (its
    first load included): the CSP violations, which fail the test, and each page's console errors and
    uncaught exceptions, which ``no_console_errors`` hands to the tests that allow none."""

    csp_violations: list[str] = field(default_factory=list)

    def watch(self, context: BrowserContext) -> None:
        context.expose_binding("puntoCspViolation", self._csp_violation)
        context.add_init_script(CSP_VIOLATIONS_REPORTED)
        context.on("page", _watch_page)

    def _csp_violation(self, _source: dict, violation: dict) -> None:
        self.csp_violations.append(
            f"{violation['directive']} blocked {violation['blocked'] or '(none)'} on {violation['page']}"
            f" at {violation['source'] or '(page)'}:{violation['line']} {violation['sample']!r}"
        )

    def assert_csp_clean(self) -> None:
        assert not self.csp_violations, "CSP violations:\n" + "\n".join(self.csp_violations)


def _watch_page(page: Page) -> None:
    errors = _PAGE_ERRORS.setdefault(page, [])
    page.on("console", lambda message: _console_error(message, errors))
    page.on("pageerror", lambda error: errors.append(str(error)))


def _console_error(message: ConsoleMessage, errors: list[str]) -> None:
    if message.type == "error":
        errors.append(message.text)


def no_console_errors(page: Page) -> list[str]:
    """The page's console errors (a CSP violation is one) and uncaught exceptions since it was created."""
    return _PAGE_ERRORS[page]


@pytest.fixture(autouse=True)
def browser_problems(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[BrowserProblems]:
    """Every context a browser test makes, by whatever helper, is watched; a CSP violation in any of its pages
    fails the test."""
    problems = BrowserProblems()
    if "browser" not in request.fixturenames:
        yield problems
        return
    browser: Browser = request.getfixturevalue("browser")
    unwatched = browser.new_context

    def new_context(**options) -> BrowserContext:
        context = unwatched(**options)
        problems.watch(context)
        return context

    monkeypatch.setattr(browser, "new_context", new_context)
    yield problems
    open_pages = [page for context in browser.contexts for page in context.pages]
    if open_pages:  # Playwright's loop runs a moment: a violation reported just now reaches the binding
        open_pages[0].wait_for_timeout(100)
    problems.assert_csp_clean()


@pytest.fixture
def new_context(browser: Browser, server_url: str) -> Iterator:
    """``new_context(phone=False)``: a fresh browser profile (its own cookies), closed after the test."""
    contexts: list[BrowserContext] = []

    def make(*, phone: bool = False) -> BrowserContext:
        options = {"viewport": PHONE, "is_mobile": True, "has_touch": True} if phone else {"viewport": DESKTOP}
        context = browser.new_context(base_url=server_url, **options)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


PLAYERS_CREATED = (
    "from decimal import Decimal; from django.contrib.auth import get_user_model; "
    "from wagering.wallets import wallet_deposit\n"
    "for name in {names!r}:\n"
    "    user, _ = get_user_model().objects.get_or_create(username=name)\n"
    "    user.set_password({password!r}); user.save()\n"
    "    wallet_deposit(user=user, amount=Decimal('1000.00'), idempotency_key=f'browser-{{name}}', reason='test')\n"
)


def players_created(server: Server, *names: str) -> None:
    """Players of a test's own, with 1,000.00 each: the server is shared, and the demo players' balances are
    what other tests count on."""
    server.manage("shell", "-c", PLAYERS_CREATED.format(names=names, password=PASSWORD))


def sign_in(page: Page, username: str, next_path: str = "/") -> None:
    page.goto(f"/accounts/login/?next={next_path}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page).to_have_url(url_at(next_path))


def url_at(path: str) -> re.Pattern:
    """The page at ``path`` itself, not the sign-in page whose ``?next=`` ends with it."""
    return re.compile(r"^[^?]*" + re.escape(path) + "$")


def staff_sign_in(context: BrowserContext, server: Server, username: str, path: str) -> Page:
    """A demo staff member signed in (password and the TOTP code of the moment) on ``path``'s page."""
    page = context.new_page()
    page.goto(path)
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.locator("input[name=otp_token]").fill(
        server.manage("shell", "-c", TOTP_NOW.format(username=username)).split()[-1]
    )
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(url_at(path))
    return page


def shoe_start_at_the_console(dealer: Page) -> None:
    """The dealer starts the shoe (seed 000 §2.1): the decks checked, cut 200 cards from the top, the burn
    card 5H shown."""
    for check in ("Every deck complete", "No marked card", "No damaged card"):
        dealer.get_by_label(check).check()
    dealer.get_by_label("Cut: cards from the top").fill("200")
    dealer.get_by_label("Burn card shown").fill("5H")
    dealer.get_by_role("button", name=re.compile("start the shoe")).click()


def open_table(context: BrowserContext, username: str, code: str) -> Page:
    page = context.new_page()
    sign_in(page, username, f"/tables/{code}/")
    expect(page.locator("[data-connection]")).to_have_text("Live")
    expect(page.locator('[data-bet="player"]')).to_be_attached()  # the snapshot is drawn
    return page


def wait_for_betting(page: Page, seconds_left: float = 6) -> str:
    """Wait for a coup taking bets for at least ``seconds_left`` more seconds; its round id."""
    page.wait_for_function(
        """(secondsLeft) => {
            const app = document.getElementById("table-app");
            const timer = app.querySelector("[data-timer]");
            return app.dataset.phase === "betting" && Number(timer.dataset.secondsLeft) >= secondsLeft;
        }""",
        arg=seconds_left,
        timeout=40_000,
    )
    return page.locator('[data-info="round"]').inner_text()


def screenshot(page: Page, name: str) -> None:
    """The top of the page as the player sees it, into var/screenshots/ (git-ignored)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=SCREENSHOTS / f"{name}.png")
