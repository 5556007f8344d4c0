"""The multi-table page (``/multi/?tables=…``, docs/ui.md, Several tables): a signed-in player's tiles for one to
four open tables with a betting window; any other choice refused with a sentence saying which and why, in the
player's language; the dealer tables' video origins, and nothing more, in its CSP."""

from __future__ import annotations

import pytest
from django.conf import settings

from tables.models import Table
from tests.factories import TableFactory
from tests.tables.test_video import policy_of

pytestmark = pytest.mark.django_db
STREAM = "https://cdn.example.com:8443/live3/live.m3u8"


@pytest.fixture
def tables(db):
    TableFactory(code="ma", name="Table A")
    TableFactory(code="mb", name="Table B")
    TableFactory(code="live", name="Live 3", dealing_mode=Table.DealingMode.DEALER, video_url=STREAM)
    TableFactory(code="shut", name="Shut", is_open=False)
    TableFactory(code="solo", name="Solo", dealing_mode=Table.DealingMode.RNG)


def test_the_tiles_one_socket_and_the_video_origin_in_the_csp(player_client, tables):
    response = player_client.get("/multi/?tables=ma,live&tables=mb")
    page = response.content.decode()
    assert response.status_code == 200
    assert [tile["table"].code for tile in response.context["tiles"]] == ["ma", "live", "mb"]
    assert 'data-socket="/ws/multi/?tables=ma%2Clive%2Cmb"' in page
    assert page.count("data-tile=") == 3 and page.count('data-action="confirm"') == 3
    assert page.count("data-header-balance") == 1 and "data-balance" not in page  # the balance shown once
    policy = policy_of(response["Content-Security-Policy"])
    assert policy["media-src"] == "'self' blob: https://cdn.example.com:8443"
    assert policy["connect-src"] == "'self' https://cdn.example.com:8443"
    assert policy == policy_of(settings.CONTENT_SECURITY_POLICY) | {
        "media-src": policy["media-src"],
        "connect-src": policy["connect-src"],
    }


@pytest.mark.parametrize(
    ("query", "sentence"),
    [
        ("ma,mb,live,shut,solo", "Choose at most four tables."),
        ("ma,nope", "There is no table “nope”."),
        ("ma,shut", "Shut is closed right now: choose an open table."),
        ("solo", "Solo deals on demand: play it on its own page."),
        ("", "Choose one to four tables in the lobby."),
    ],
)
def test_a_choice_it_cannot_show_is_refused_saying_why(player_client, tables, query, sentence):
    response = player_client.get(f"/multi/?tables={query}")
    assert response.status_code == 400
    assert sentence in response.content.decode() and "data-tile" not in response.content.decode()


def test_refused_in_chinese_too(player_client, tables):
    player_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    assert "最多选择四张牌桌。" in player_client.get("/multi/?tables=ma,mb,live,shut,solo").content.decode()


def test_sign_in_first(client, tables):
    response = client.get("/multi/?tables=ma")
    assert response.status_code == 302 and response["Location"].startswith(settings.LOGIN_URL)
