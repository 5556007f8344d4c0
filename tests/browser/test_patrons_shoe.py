"""Seed 002's big table (issue 30), in browsers: the patrons hold the shoe; the pit boss's console says which
seat holds it and hands it on when the patron declines it, and the players' pages, in English and in Chinese,
show the holder from the snapshot and then from the live event, without a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import (
    DESKTOP,
    no_console_errors,
    open_table,
    players_created,
    screenshot,
    staff_sign_in,
)

pytestmark = pytest.mark.browser

BIG_TABLE = """
from django.contrib.auth import get_user_model
from tables import seating, services
boss = get_user_model().objects.get(username="pitboss")
table = services.table_create(code="big1", name="Big Table", actor=boss, dealing_mode="dealer", patrons_hold_shoe=True)
services.table_open(table=table, actor=boss)
for number in (2, 6):
    seating.patron_seat(table=table, seat_number=number, actor=boss, guest_name=f"patron {number}")
"""


def test_the_players_see_who_holds_the_shoe_as_the_console_hands_it_on(browser, server):
    server.manage("shell", "-c", BIG_TABLE)
    players_created(server, "pablo", "lin")
    english = open_table(browser.new_context(base_url=server.url, viewport=DESKTOP), "pablo", "big1")
    chinese_context = browser.new_context(base_url=server.url, viewport=DESKTOP)
    chinese = open_table(chinese_context, "lin", "big1")
    chinese_context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": server.url}])
    chinese.reload()
    errors = no_console_errors(english) + no_console_errors(chinese)
    expect(english.locator("[data-shoe-holder]")).to_have_text("Seat 2 holds the shoe")
    expect(chinese.locator("[data-shoe-holder]")).to_have_text("2 号座持有牌靴")

    pit = staff_sign_in(browser.new_context(base_url=server.url, viewport=DESKTOP), server, "pitboss", "/console/big1/")
    errors += no_console_errors(pit)
    expect(pit.locator("[data-shoe-holder]")).to_contain_text("Seat 2 holds the shoe")
    expect(pit.locator('[data-seat="2"]')).to_contain_text("shoe")
    pit.get_by_role("button", name="Seat 2 declines the shoe").click()
    expect(pit.locator(".messages")).to_contain_text("Seat 2 declined the shoe: seat 6 holds the shoe.")

    expect(english.locator("[data-shoe-holder]")).to_have_text("Seat 6 holds the shoe")  # the live event
    expect(chinese.locator("[data-shoe-holder]")).to_have_text("6 号座持有牌靴")
    screenshot(english, "patrons-shoe-desktop-en")
    screenshot(chinese, "patrons-shoe-desktop-zh")
    screenshot(pit, "patrons-shoe-console")
    assert errors == []
