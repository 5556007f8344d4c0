"""Responsible gaming in Chromium (issue 31): a limit set on the account page and its cooling-off, a reality check
pausing the table until Continue, a time-out refusing bets; at 1440 × 900, 390 × 844 and 844 × 390, in English and
Chinese. The player's protection is made due or taken in the server's database, as a change made elsewhere (another
tab, staff) would be: the page learns it from the server alone."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import (
    PASSWORD,
    SCREENSHOTS,
    Server,
    no_console_errors,
    players_created,
    screenshot,
    url_at,
    wait_for_betting,
)
from tests.browser.test_accessibility import violations

pytestmark = pytest.mark.browser

SIZES = [(1440, 900), (390, 844), (844, 390)]
PROTECTION_SET = (
    "from datetime import timedelta; from django.utils import timezone; from wagering.models import PlayerProtection\n"
    "PlayerProtection.objects.filter(user__username={username!r}).update({field}=timezone.now() + "
    "timedelta(seconds={seconds}))\n"
)


@pytest.fixture
def context(browser: Browser, server: Server):
    made: list[BrowserContext] = []

    def make(size: tuple[int, int], locale: str = "en-US") -> BrowserContext:
        phone = size[0] < 1000
        made.append(
            browser.new_context(
                base_url=server.url,
                locale=locale,
                viewport={"width": size[0], "height": size[1]},
                is_mobile=phone,
                has_touch=phone,
            )
        )
        return made[-1]

    yield make
    for each in made:
        each.close()


def signed_in(context: BrowserContext, username: str, path: str) -> Page:
    page = context.new_page()
    page.goto(f"/accounts/login/?next={path}")
    page.locator('input[name="username"]').fill(username)
    page.locator('input[name="password"]').fill(PASSWORD)
    page.locator('.login-form button[type="submit"]').click()
    expect(page).to_have_url(url_at(path))
    return page


def table_drawn(page: Page) -> None:
    expect(page.locator("[data-connection]")).to_have_attribute("data-state", "live")
    expect(page.locator('[data-bet="player"]')).to_be_attached()


def protection_set(server: Server, username: str, field: str, seconds: int) -> None:
    server.manage("shell", "-c", PROTECTION_SET.format(username=username, field=field, seconds=seconds))


def bet(page: Page, area: str = "banker") -> None:
    """A 10 chip on an area, confirmed, in a betting window with time to spare."""
    wait_for_betting(page)
    page.locator('[data-chip="10"]').click()
    page.locator(f'[data-bet="{area}"]').click()
    page.locator('[data-action="confirm"]').click()


def test_a_limit_set_on_the_account_page_and_its_cooling_off(context, server):
    players_created(server, "rgl")
    page = signed_in(context(SIZES[0]), "rgl", "/account/")
    limits = page.locator('[data-limits-form="loss"]')
    limits.get_by_label("Daily loss limit").fill("50")
    limits.get_by_role("button", name="Save").click()
    expect(page.locator(".account-messages")).to_contain_text("Daily loss limit: 50.00 EUR, in force now.")
    expect(page.locator('[data-limit="loss_day"] .limit-state')).to_have_text("In force: 50.00 EUR")

    # Raised: the new limit waits out the cooling-off, shown with the time it applies.
    limits.get_by_label("Daily loss limit").fill("80")
    before = datetime.now(UTC)
    limits.get_by_role("button", name="Save").click()
    pending = page.locator('[data-limit="loss_day"] [data-limit-pending]')
    expect(pending).to_have_text(re.compile(r"^Changes to 80\.00 EUR: applies at \d{4}-\d\d-\d\d \d\d:\d\d UTC$"))
    applies = datetime.fromisoformat(pending.locator("time").get_attribute("datetime"))
    assert before + timedelta(hours=24) - timedelta(seconds=5) <= applies <= datetime.now(UTC) + timedelta(hours=24)
    assert pending.locator("time").inner_text() == f"{applies:%Y-%m-%d %H:%M} UTC"
    expect(page.locator('[data-limit="loss_day"] .limit-state')).to_contain_text("In force: 50.00 EUR")
    expect(limits.get_by_label("Daily loss limit")).to_have_value("50.00")
    assert violations(page, "account, a limit pending") == []

    assert no_console_errors(page) == []
    for size in SIZES:
        shown = signed_in(context(size), "rgl", "/account/")
        expect(shown.locator('[data-limit="loss_day"] [data-limit-pending]')).to_be_visible()
        assert shown.evaluate("document.documentElement.scrollWidth") <= size[0], f"wider than the screen at {size}"
        shown.locator('[data-limit="loss_day"]').scroll_into_view_if_needed()
        shown.screenshot(path=SCREENSHOTS / f"account-limits-{size[0]}x{size[1]}.png")
        assert no_console_errors(shown) == []

    # In Chinese: the same page, the pending change with its time.
    chinese = signed_in(context(SIZES[1], locale="zh-CN"), "rgl", "/account/")
    expect(chinese.locator("#rg-title")).to_have_text("理性博彩")
    expect(chinese.locator('[data-limit="loss_day"] [data-limit-pending]')).to_contain_text(
        f"{applies:%Y-%m-%d %H:%M} UTC"
    )
    chinese.locator('[data-limit="loss_day"]').scroll_into_view_if_needed()
    chinese.screenshot(path=SCREENSHOTS / "account-limits-390x844-zh.png")
    assert no_console_errors(chinese) == []


def test_a_reality_check_pauses_the_table_until_continue(context, server):
    players_created(server, "rgc")
    for index, size in enumerate(SIZES):
        page = signed_in(context(size), "rgc", "/tables/pb1/")
        table_drawn(page)
        check = page.locator('[data-dialog="reality-check"]')
        if index == 1:
            # Due while the page did not know: the bet is refused, and the check comes up.
            protection_set(server, "rgc", "reality_check_due_at", -1)
            bet(page)
            expect(page.locator("[data-bet-message]")).to_have_text(
                "Time for your reality check: answer it to go on playing."
            )
        else:
            if index == 0:  # a bet in this session first: the check counts it
                bet(page)
                expect(page.locator("[data-bet-message]")).to_have_text(re.compile(r"^Bets accepted"))
            # Due in a moment: the page's timer brings the check up.
            protection_set(server, "rgc", "reality_check_due_at", 4)
            page.reload()
            table_drawn(page)
        expect(check).to_be_visible(timeout=20_000)
        expect(check.locator('[data-summary="duration"]')).to_have_text(re.compile(r"^\d+ min$"))
        # One session for all three sign-ins (signing in again does not restart it): each size's bets count, the
        # chip refused at the second kept on the felt and confirmed with the next one after Continue.
        staked = ("10.00 EUR", "20.00 EUR", "40.00 EUR")[index]
        expect(check.locator('[data-summary="staked"]')).to_have_text(staked)
        expect(check.locator('[data-summary="net"]')).to_have_text(re.compile(r"^-?\d[\d,]*\.\d\d EUR$"))
        expect(page.locator("[data-protection-notice]")).to_have_text("Answer your reality check to go on betting.")
        expect(page.locator('[data-action="confirm"]')).to_be_disabled()
        expect(check.get_by_role("button", name="Continue")).to_be_focused()
        page.keyboard.press("Escape")
        page.wait_for_timeout(200)
        expect(check).to_be_visible()  # Escape does not dismiss it
        box = check.bounding_box()
        assert box["x"] >= 0 and box["y"] >= 0, box
        assert box["x"] + box["width"] <= size[0] and box["y"] + box["height"] <= size[1], (size, box)
        page.screenshot(path=SCREENSHOTS / f"reality-check-{size[0]}x{size[1]}.png")
        if index == 1:
            assert violations(page, "table, reality check") == []

        check.get_by_role("button", name="Continue").click()
        expect(check).to_be_hidden()
        expect(page.locator("[data-protection-notice]")).to_be_hidden()
        bet(page)
        expect(page.locator("[data-bet-message]")).to_have_text(re.compile(r"^Bets accepted"))
        assert no_console_errors(page) == []
    # The session's end, when its limit comes: its own dialog, betting closed.
    protection_set(server, "rgc", "session_ends_at", 3)
    page.reload()
    table_drawn(page)
    ended = page.locator('[data-dialog="session-limit"]')
    expect(ended).to_be_visible(timeout=15_000)
    expect(ended.get_by_role("button", name="Sign out")).to_be_focused()
    page.keyboard.press("Escape")
    expect(ended).to_be_visible()
    expect(page.locator('[data-action="confirm"]')).to_be_disabled()
    page.screenshot(path=SCREENSHOTS / "session-limit-844x390.png")
    ended.get_by_role("link", name="Lobby").click()
    expect(page).to_have_url(url_at("/"))
    assert no_console_errors(page) == []


def test_a_time_out_refuses_bets(context, server):
    players_created(server, "rgb", "rgz")
    page = signed_in(context(SIZES[0]), "rgb", "/tables/pb1/")
    table_drawn(page)
    protection_set(server, "rgb", "timed_out_until", 24 * 3600)  # taken in another tab, say
    bet(page)
    refusal = page.locator("[data-bet-message]")
    expect(refusal).to_have_text(re.compile(r"^You are on a time-out until .+: no bets until then\.$"))
    notice = page.locator("[data-protection-notice]")
    expect(notice).to_have_text(re.compile(r"^You are on a time-out until .+: betting is paused\.$"))
    expect(page.locator('[data-action="confirm"]')).to_be_disabled()
    screenshot(page, "time-out-refused-1440x900")
    page.reload()  # the snapshot says so at once
    table_drawn(page)
    expect(notice).to_be_visible()
    assert no_console_errors(page) == []

    # In Chinese, on a phone: the time-out taken on the account page (chosen, then confirmed), the table paused.
    for size in SIZES[1:]:
        phone = signed_in(context(size, locale="zh-CN"), "rgz", "/account/")
        if size == SIZES[1]:
            timeout = phone.locator('[data-break="time_out"]')
            timeout.locator('input[value="24h"]').check()
            timeout.locator('button[type="submit"]').click()
            confirm = phone.locator("[data-break-confirm]")
            expect(confirm).to_contain_text("24小时")
            assert violations(phone, "account, a time-out to confirm") == []
            confirm.scroll_into_view_if_needed()
            phone.screenshot(path=SCREENSHOTS / "time-out-confirm-390x844-zh.png")
            confirm.locator('button[type="submit"]').click()
            expect(phone.locator('[data-break-in-force="time_out"]')).to_be_visible()
        phone.goto("/tables/pb1/")
        table_drawn(phone)
        expect(phone.locator("[data-protection-notice]")).to_have_text(re.compile(r"^您正在暂停游戏"))
        expect(phone.locator('[data-action="confirm"]')).to_be_disabled()
        screenshot(phone, f"time-out-{size[0]}x{size[1]}-zh")
        assert no_console_errors(phone) == []
