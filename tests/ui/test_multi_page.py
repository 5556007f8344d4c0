"""The multi-table page (``/multi/?tables=…``, docs/ui.md, Several tables): a signed-in player's tiles for one to
four tables with a betting window, a closed one among them a tile saying so; an unknown table or one dealt on demand
set aside with a sentence saying which and why, in the player's language, the others still shown; nothing to show,
or more than four, refused; the dealer tables' video origins, and nothing more, in its CSP."""

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


def test_a_closed_table_is_a_tile_saying_so_beside_the_open_ones(player_client, tables):
    response = player_client.get("/multi/?tables=ma,shut,mb")
    page = response.content.decode()
    assert response.status_code == 200
    assert [tile["table"].code for tile in response.context["tiles"]] == ["ma", "shut", "mb"]
    assert 'data-socket="/ws/multi/?tables=ma%2Cshut%2Cmb"' in page  # followed: it comes back when it reopens
    closed = page[page.index('data-tile="shut"') :].split("</article>")[0]
    assert "The table is closed" in closed and 'data-board data-locked="true"' in closed
    assert "The table is closed" not in page[page.index('data-tile="ma"') :].split("</article>")[0]


@pytest.mark.parametrize(
    ("query", "shown", "sentences"),
    [
        ("ma,nope,mb", ["ma", "mb"], ["There is no table “nope”."]),
        ("solo,ma", ["ma"], ["Solo deals on demand: play it on its own page."]),
        ("ma,ma, ma ,nope,nope", ["ma"], ["There is no table “nope”."]),  # each once, whatever the repeats
        ("live,<b>x</b>", ["live"], ["There is no table “&lt;b&gt;x&lt;/b&gt;”."]),  # escaped
    ],
)
def test_a_table_it_cannot_show_is_set_aside_saying_why_and_the_others_shown(
    player_client, tables, query, shown, sentences
):
    response = player_client.get(f"/multi/?tables={query}")
    page = response.content.decode()
    assert response.status_code == 200
    assert [tile["table"].code for tile in response.context["tiles"]] == shown
    assert page.count('class="multi-set-aside"') == 1
    for sentence in sentences:
        assert sentence in page


@pytest.mark.parametrize(
    ("query", "sentence"),
    [
        ("ma,mb,live,shut,solo", "Choose at most four tables."),
        ("nope", "There is no table “nope”."),
        ("nope,solo", "There is no table “nope”."),
        ("solo", "Solo deals on demand: play it on its own page."),
        ("", "Choose one to four tables in the lobby."),
        (",,,", "Choose one to four tables in the lobby."),
    ],
)
def test_a_choice_with_nothing_to_show_is_refused_saying_why(player_client, tables, query, sentence):
    response = player_client.get(f"/multi/?tables={query}")
    assert response.status_code == 400
    assert sentence in response.content.decode() and "data-tile" not in response.content.decode()


def test_a_long_unknown_code_is_named_cut_short(player_client, tables):
    page = player_client.get(f"/multi/?tables=ma,{'x' * 500}").content.decode()
    notice = page[page.index('class="multi-set-aside"') :].split("</ul>")[0]
    assert f"There is no table “{'x' * 40}”." in notice and "x" * 41 not in notice


def test_refused_in_chinese_too(player_client, tables):
    player_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    assert "最多选择四张牌桌。" in player_client.get("/multi/?tables=ma,mb,live,shut,solo").content.decode()
    page = player_client.get("/multi/?tables=ma,shut,solo").content.decode()
    assert "牌桌已关闭" in page and "Solo 为按需发牌" in page


def test_sign_in_first(client, tables):
    response = client.get("/multi/?tables=ma")
    assert response.status_code == 302 and response["Location"].startswith(settings.LOGIN_URL)
