"""The pit screen by pit (issue 18, "every table of their pit") at a desktop: the demo's pit boss sees the Main
pit's tables, live3's dealer and seated patrons among them; a pit boss who supervises no pit sees none of them,
only the tables in no pit (every pit boss's: other tests on the shared server add some, so this one adds its own).
No console error, no CSP violation."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import DESKTOP, PASSWORD, Server, no_console_errors, screenshot, staff_sign_in

pytestmark = pytest.mark.browser

PIT_BOSS_WITHOUT_PIT = f"""
from django.contrib.auth import get_user_model
from casino.sign_in.two_factor import staff_totp_device_issue
from tables.roles import PIT_BOSS, roles_ensure
from tables.services import table_create

user = get_user_model().objects.create_user(username="newboss", password="{PASSWORD}", is_staff=True)
user.groups.add(roles_ensure()[PIT_BOSS])
staff_totp_device_issue(user=user)
table_create(code="spare9", name="Spare 9", actor=None)
"""
PIT = "/console/floor/pit/"


def pit_screen(browser: Browser, server: Server, username: str) -> tuple[Page, list[str]]:
    page = staff_sign_in(browser.new_context(base_url=server.url, viewport=DESKTOP), server, username, PIT)
    return page, no_console_errors(page)


def test_the_pit_boss_sees_their_pit_and_one_without_a_pit_the_tables_in_none(browser, server):
    page, errors = pit_screen(browser, server, "pitboss")
    main = page.locator("section.pit", has=page.get_by_role("heading", name="Main pit", level=2))
    for code in ("pb1", "nc2", "live3", "live4"):
        expect(main.locator(f'[data-pit-table="{code}"]')).to_have_count(1)
    expect(main.locator('[data-pit-table="live3"]')).to_contain_text("dealer dealer")
    expect(main.locator('[data-pit-table="live3"]')).to_contain_text("3: carol")
    screenshot(page, "pit-screen-desktop")

    server.manage("shell", "-c", PIT_BOSS_WITHOUT_PIT)
    stranger, more = pit_screen(browser, server, "newboss")
    expect(stranger.get_by_role("heading", name="Main pit", level=2)).to_have_count(0)
    for code in ("pb1", "nc2", "live3", "live4"):
        expect(stranger.locator(f'[data-pit-table="{code}"]')).to_have_count(0)
    loose = stranger.locator("section.pit", has=stranger.get_by_role("heading", name="Tables in no pit", level=2))
    expect(loose.locator('[data-pit-table="spare9"]')).to_have_count(1)
    expect(stranger.locator(".pit-none")).to_have_count(0)
    screenshot(stranger, "pit-screen-no-pit-desktop")
    assert errors + more == []
