"""A dealer table's live video (issue 19): the pit boss sets it (https only, audited, players told live), the
table page plays it under a CSP that allows that stream's origin and nothing more."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.urls import reverse

from kernel.security import csp_sources_add, url_origin
from roadmaps.selectors import table_snapshot
from tables.errors import TableError
from tables.models import AuditLog, Table
from tables.roles import PIT_BOSS, roles_ensure
from tables.services import table_rules_update
from tests.factories import staff_login
from tests.tables.test_admin_rules_and_limits import change_form_data

pytestmark = pytest.mark.django_db

STREAM = "https://cdn.example.com:8443/live3/live.m3u8"


def policy_of(text: str) -> dict[str, str]:
    return dict(directive.strip().split(" ", 1) for directive in text.split(";"))


@pytest.fixture
def events(monkeypatch) -> list[tuple[str, dict]]:
    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(
        "tables.services.table_event_send",
        lambda *, table_code, event_type, data: sent.append((event_type, data)),
    )
    return sent


@pytest.fixture
def player_client(client):
    client.force_login(get_user_model().objects.create_user(username="viewer", password="x"))
    return client


def test_the_pit_boss_sets_and_clears_the_video_audited_and_players_told_live(dealer_table, pit_boss, events):
    table_rules_update(table=dealer_table, actor=pit_boss, changes={"video_url": STREAM}, reason="camera 3 on")
    assert Table.objects.get(pk=dealer_table.pk).video_url == STREAM
    entry = AuditLog.objects.filter(action="rules_changed").latest("pk")
    assert (entry.before["video_url"], entry.after["video_url"], entry.reason) == ("", STREAM, "camera 3 on")
    assert events == [("video", {"url": STREAM})]
    assert table_snapshot(table=Table.objects.get(pk=dealer_table.pk))["table"]["video_url"] == STREAM

    table_rules_update(table=dealer_table, actor=pit_boss, changes={"betting_seconds": 20}, reason="slower")
    table_rules_update(table=dealer_table, actor=pit_boss, changes={"video_url": ""}, reason="camera 3 off")
    assert events == [("video", {"url": STREAM}), ("video", {"url": ""})]  # only when the video changes


@pytest.mark.parametrize("url", ["http://cdn.example.com/live.m3u8", "ftp://cdn.example.com/live.m3u8", "not a url"])
def test_a_video_url_must_be_https(dealer_table, pit_boss, events, url):
    with pytest.raises(TableError, match="invalid rules"):
        table_rules_update(table=dealer_table, actor=pit_boss, changes={"video_url": url}, reason="camera")
    assert Table.objects.get(pk=dealer_table.pk).video_url == ""
    assert events == []


def test_http_is_allowed_where_the_setting_says_so(dealer_table, pit_boss, events, settings):
    settings.VIDEO_URL_ALLOW_HTTP = True
    table_rules_update(
        table=dealer_table, actor=pit_boss, changes={"video_url": "http://127.0.0.1:8090/live.m3u8"}, reason="dev"
    )
    assert Table.objects.get(pk=dealer_table.pk).video_url == "http://127.0.0.1:8090/live.m3u8"


def test_the_table_admin_refuses_an_http_video_with_a_clear_error(dealer_table, client):
    user = get_user_model().objects.create_user(username="video-boss", password="x", is_staff=True)
    user.groups.add(roles_ensure()[PIT_BOSS])
    boss = staff_login(client, user)
    url = reverse("admin:tables_table_change", args=[dealer_table.pk])
    page = boss.get(url)
    assert "Live video" in page.content.decode()
    refused = boss.post(url, change_form_data(page, video_url="http://cdn.example.com/x.m3u8", reason="camera"))
    assert refused.status_code == 200
    assert "must start with https://" in str(refused.context["adminform"].form.errors["video_url"])
    assert Table.objects.get(pk=dealer_table.pk).video_url == ""
    assert boss.post(url, change_form_data(page, video_url=STREAM, reason="camera 3 on")).status_code == 302
    assert Table.objects.get(pk=dealer_table.pk).video_url == STREAM


def test_the_table_page_allows_the_stream_origin_and_nothing_more(player_client, dealer_table, pit_boss):
    table_rules_update(table=dealer_table, actor=pit_boss, changes={"video_url": STREAM}, reason="camera 3 on")
    response = player_client.get(f"/tables/{dealer_table.code}/")
    policy = policy_of(response["Content-Security-Policy"])
    assert policy["media-src"] == "'self' blob: https://cdn.example.com:8443"
    assert policy["connect-src"] == "'self' https://cdn.example.com:8443"
    assert "worker-src" not in policy  # hls.js runs without its worker
    unchanged = policy_of(settings.CONTENT_SECURITY_POLICY)
    unchanged |= {"media-src": policy["media-src"], "connect-src": policy["connect-src"]}
    assert policy == unchanged
    assert "*" not in response["Content-Security-Policy"]
    page = response.content.decode()
    assert f'data-video-url="{STREAM}"' in page and 'data-video-origin="https://cdn.example.com:8443"' in page


def test_no_video_no_change_to_the_policy(player_client, dealer_table, auto_table):
    for table in (dealer_table, auto_table):
        response = player_client.get(f"/tables/{table.code}/")
        assert response["Content-Security-Policy"] == settings.CONTENT_SECURITY_POLICY
    assert "data-video" not in player_client.get(f"/tables/{auto_table.code}/").content.decode()


@pytest.mark.parametrize(
    "url",
    [
        "https://视频.example.com/live.m3u8",  # not ASCII: the header would be MIME-encoded, the page left with no CSP
        "https://vidéo.example.com/live.m3u8",
        "https://a;sandbox;@cdn.example.com/live.m3u8",  # a directive in the user part
        "https://user:secret@cdn.example.com/live.m3u8",
    ],
)
def test_a_video_url_that_could_break_the_pages_policy_is_refused(dealer_table, pit_boss, events, url):
    with pytest.raises(TableError, match="plain name in ASCII"):
        table_rules_update(table=dealer_table, actor=pit_boss, changes={"video_url": url}, reason="camera")
    assert Table.objects.get(pk=dealer_table.pk).video_url == ""
    assert not AuditLog.objects.filter(action="rules_changed").exists()


def test_a_streams_origin_is_written_as_the_browser_writes_it():
    assert url_origin("https://CDN.Example.com:443/live.m3u8") == "https://cdn.example.com"  # the default port left out
    assert url_origin("https://xn--fiq228c.example.com:8443/a.m3u8") == "https://xn--fiq228c.example.com:8443"
    assert url_origin("http://[::1]:8090/live.m3u8") == "http://[::1]:8090"


@pytest.mark.parametrize(
    "source", ["https://a;sandbox", "*", "https://cdn.example.com 'unsafe-inline'", "https://é.fr"]
)
def test_nothing_but_an_origin_goes_into_a_policy(source):
    with pytest.raises(ValueError):
        csp_sources_add(HttpResponse(), {"media-src": [source]})


# --- A stream on the site's own origin, by its path (the demo's test stream, issue 32) ----------------------


def test_a_playlist_on_the_sites_own_origin_is_taken_by_its_path(dealer_table, pit_boss, events):
    table_rules_update(
        table=dealer_table, actor=pit_boss, changes={"video_url": "/video/d1/live.m3u8"}, reason="test stream"
    )
    assert Table.objects.get(pk=dealer_table.pk).video_url == "/video/d1/live.m3u8"
    assert events == [("video", {"url": "/video/d1/live.m3u8"})]


@pytest.mark.parametrize(
    "url",
    [
        "//cdn.example.com/live.m3u8",  # protocol-relative: another origin
        "/\\cdn.example.com/live.m3u8",  # a browser reads "/\" as "//"
        "/video/../admin/live.m3u8",
        "/video/d1/live.mp4",
        "/video/d1/live.m3u8?camera=2",
        "/video/d 1/live.m3u8",
        "video/d1/live.m3u8",
    ],
)
def test_a_path_that_could_lead_elsewhere_is_refused(dealer_table, pit_boss, events, url):
    with pytest.raises(TableError, match="must start with https://"):
        table_rules_update(table=dealer_table, actor=pit_boss, changes={"video_url": url}, reason="camera")
    assert Table.objects.get(pk=dealer_table.pk).video_url == ""


def test_a_stream_on_the_sites_own_origin_adds_no_origin_to_the_policy(player_client, dealer_table, pit_boss):
    table_rules_update(
        table=dealer_table, actor=pit_boss, changes={"video_url": "/video/d1/live.m3u8"}, reason="test stream"
    )
    response = player_client.get(f"/tables/{dealer_table.code}/")
    policy = policy_of(response["Content-Security-Policy"])
    assert policy["media-src"] == "'self' blob:"  # hls.js's MediaSource; the stream itself is 'self'
    assert policy == policy_of(settings.CONTENT_SECURITY_POLICY) | {"media-src": "'self' blob:"}
    page = response.content.decode()
    assert 'data-video-url="/video/d1/live.m3u8"' in page and 'data-video-origin="http://testserver"' in page
