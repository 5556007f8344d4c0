"""Languages (docs/ui.md, Languages): a player whose browser asks for Chinese plays in Chinese, amounts with their
currency; the header's menu switches to English, and the choice sticks. Nothing on the table page stays English
but the data (the table's name, codes, the player's name) and the currency codes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, expect

from tests.browser.conftest import PASSWORD, players_created, screenshot, url_at, wait_for_betting

pytestmark = pytest.mark.browser

ROADS_ZH = ["大路", "珠盘路", "大眼仔", "小路", "曱甴路"]
AMOUNT_EUR = re.compile(r"^\d{1,3}(,\d{3})*\.\d{2} EUR$")
# What may stay in Latin words on a Chinese page: data (the table's name and code, round ids, the player's name),
# the brand, the currency and the menu's "English" (single letters are card faces and codes: "K♠", "7H").
ALLOWED_LATIN = {"Punto", "Banco", "PB", "EUR", "English"}
LANGUAGES = {"en": "en-GB", "zh": "zh-CN"}


class Problems:
    """Console errors, page errors and CSP violations of every page of a context."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def watch(self, context: BrowserContext) -> None:
        context.on("console", self._console)
        context.on("page", lambda page: page.on("pageerror", lambda error: self.found.append(str(error))))

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error" or "Content Security Policy" in message.text:
            self.found.append(message.text)


@pytest.fixture
def contexts(browser: Browser, server_url: str) -> Iterator:
    made: list[BrowserContext] = []
    problems = Problems()

    def make(*, locale: str) -> BrowserContext:
        context = browser.new_context(base_url=server_url, locale=locale, viewport={"width": 1440, "height": 900})
        problems.watch(context)
        made.append(context)
        return context

    make.problems = problems
    yield make
    for context in made:
        context.close()


def sign_in_anywhere(page: Page, username: str, next_path: str) -> None:
    """Sign in whatever the page's language: by the form's field names."""
    page.goto(f"/accounts/login/?next={next_path}")
    page.locator('input[name="username"]').fill(username)
    page.locator('input[name="password"]').fill(PASSWORD)
    page.locator('.login-form button[type="submit"]').click()
    expect(page).to_have_url(url_at(next_path))


def open_table(context: BrowserContext, username: str, code: str = "pb1") -> Page:
    page = context.new_page()
    sign_in_anywhere(page, username, f"/tables/{code}/")
    expect(page.locator("[data-connection]")).to_have_attribute("data-state", "live")
    expect(page.locator('[data-bet="player"]')).to_be_attached()
    return page


def chip(page: Page, value: int):
    return page.locator(f'[data-chip="{value}"]')


def latin_words(page: Page) -> set[str]:
    """The words of two Latin letters or more in the page's visible text, but the round ids and the player's name."""
    text = page.locator("body").inner_text()
    for data in [page.locator("#table-app").get_attribute("data-user"), *re.findall(r"PB1-\S+", text)]:
        text = text.replace(data, " ")
    return set(re.findall(r"[A-Za-z]{2,}", text))


def test_a_chinese_browser_plays_in_chinese_then_english_by_the_menu(contexts, server):
    players_created(server, "lang_mei")
    context = contexts(locale="zh-CN")

    lobby = context.new_page()
    lobby.goto("/")
    expect(lobby.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(lobby.locator("h1")).to_have_text("真人牌桌")
    expect(lobby.locator('[data-lobby-table="pb1"] [data-status]')).to_have_text(
        re.compile(r"请下注|停止下注|发牌中|下一局即将开始|闲赢|庄赢|和")
    )
    expect(lobby.get_by_role("button", name="English")).to_be_visible()
    screenshot(lobby, "languages-lobby-zh")

    page = open_table(context, "lang_mei")
    expect(page.locator("[data-connection]")).to_have_text("直播中")
    for name in ROADS_ZH:
        expect(page.locator("[data-roads-panel] .road-name", has_text=name).first).to_be_attached()
    expect(page.locator('[data-action="confirm"]')).to_have_text("确认")
    expect(page.locator('[data-action="undo"]')).to_have_text("撤销")
    expect(page.locator('[data-action="rebet"]')).to_have_text("重复下注")
    expect(page.locator('[data-ask="banker"]').first).to_have_text("庄问路")
    expect(page.locator('[data-hand="player"] .hand-title')).to_contain_text("闲")
    expect(page.locator('[data-bet="banker"] .spot-name')).to_have_text("庄")
    expect(page.locator('[data-bet="tie"] .spot-name')).to_have_text("和")
    expect(page.locator("[data-balance]")).to_have_text("1,000.00")
    expect(page.locator("[data-header-balance]")).to_have_text("1,000.00")

    wait_for_betting(page, seconds_left=5)
    expect(page.locator("p[data-phase]")).to_have_text("请下注")

    # A refused bet: 500 on Tie, over its maximum of 100.
    chip(page, 500).click()
    page.locator('[data-bet="tie"]').click()
    page.locator('[data-action="confirm"]').click()
    message = page.locator("[data-bet-message]")
    expect(message).to_have_attribute("data-kind", "error")
    expect(message).to_contain_text("和：500.00 超过最高限红 100.00")

    # A bet taken, then the coup's result and the player's own.
    page.locator('[data-action="remove"]').click()
    chip(page, 10).click()
    page.locator('[data-bet="banker"]').click()
    page.locator('[data-action="confirm"]').click()
    expect(message).to_have_text("下注成功：庄 10.00")
    expect(page.locator("[data-stake-total]")).to_have_text("10.00")

    expect(page.locator("[data-result]")).to_have_text(re.compile(r"^(闲赢|庄赢|和) \d 比 \d"), timeout=40_000)
    headline = page.locator("[data-my-result] .my-result-headline")
    banners = r"^(您赢了 9\.50 EUR|未中：您输了 10\.00 EUR|不输不赢： 退还 10\.00 EUR)$"
    expect(headline).to_have_text(re.compile(banners))
    assert AMOUNT_EUR.match(page.locator("[data-my-result] .my-result-amount").inner_text().removeprefix("退还 "))
    expect(page.locator("[data-my-result] .my-result-bets li")).to_have_text(re.compile(r"^庄 10\.00 (赢|输|和局)"))

    # History, in Chinese with its amounts.
    page.locator('[data-tool="history"]').click()
    history = page.get_by_role("dialog", name="游戏历史")
    expect(history.locator(".history-heading").first).to_have_text("我的下注")
    expect(history.locator(".history-bet").first).to_contain_text("庄 10.00 EUR")
    history.get_by_role("button", name="关闭").click()

    # Nothing untranslated visible: only data, the currency, card faces and the menu's "English" in Latin letters.
    page.locator('[data-tool="limits"]').click()
    expect(page.get_by_role("dialog", name="限红")).to_contain_text("所有金额以 EUR 计")
    screenshot(page, "languages-limits-zh")
    untranslated = latin_words(page) - ALLOWED_LATIN - {"lang", "mei"}  # the username, in the header
    assert not untranslated, f"untranslated on the table page: {sorted(untranslated)}"
    page.get_by_role("dialog", name="限红").get_by_role("button", name="关闭").click()

    # The menu: English, and it sticks (the Accept-Language says Chinese still).
    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page).to_have_url(re.compile(r"/tables/pb1/$"))
    expect(page.locator('[data-action="confirm"]')).to_have_text("Confirm")
    expect(page.locator("[data-roads-panel] .road-name").first).to_have_text("Big Road")
    expect(page.get_by_role("button", name="简体中文")).to_be_visible()
    page.goto("/")
    expect(page.locator("h1")).to_have_text("Live tables")
    other = context.new_page()
    other.goto("/tables/pb1/")
    expect(other.locator('[data-action="confirm"]')).to_have_text("Confirm")
    expect(other.locator("[data-connection]")).to_have_text("Live")

    assert not contexts.problems.found, contexts.problems.found


def test_an_english_browser_gets_english_and_the_menu_offers_chinese(contexts):
    page = contexts(locale="en-US").new_page()
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("h1")).to_have_text("Live tables")
    menu = page.get_by_role("button", name="简体中文")
    menu.focus()
    page.keyboard.press("Enter")  # keyboard-usable
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(page.locator("h1")).to_have_text("真人牌桌")
    assert not contexts.problems.found, contexts.problems.found
