"""Game launch: a partner gets a single-use launch URL for its player; opening it signs the browser in as
that player only (never staff), once, within 60 s, in a session its partner's origins may frame."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.utils import timezone

from casino.players.launch import LAUNCH_COOKIE
from partners.models import LaunchToken, PartnerPlayer
from tests.factories import UserFactory
from tests.partners.conftest import client_for, launch_open, launch_proof, partner_make


@pytest.fixture
def launch_body():
    return {"player_id": "u-42", "nickname": "Ann", "currency": "EUR", "language": "en", "table": "pb1"}


def launch_url(api, body) -> str:
    response = api.post("/api/v1/sessions/", body)
    assert response.status_code == 201, response.json()
    return response.json()["launch_url"]


def test_a_launch_url_signs_the_browser_in_as_the_partners_player_once(api, partner, table, launch_body):
    response = api.post("/api/v1/sessions/", {**launch_body, "return_url": "https://casino.example/lobby"})
    assert response.status_code == 201
    body = response.json()
    assert body["launch_url"].startswith("http://testserver/launch/")
    expires = timezone.datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert timedelta(seconds=55) < expires - timezone.now() <= timedelta(seconds=60)
    browser = Client()
    opened = launch_open(browser, body["launch_url"])
    assert opened.status_code == 302 and opened["Location"] == "/tables/pb1/"
    assert opened["Referrer-Policy"] == "no-referrer"
    player = PartnerPlayer.objects.get(partner=partner, external_id="u-42")
    assert int(browser.session["_auth_user_id"]) == player.user_id
    assert browser.session["launch"]["return_url"] == "https://casino.example/lobby"
    page = browser.get("/tables/pb1/")
    assert page.status_code == 200
    assert b'href="https://casino.example/lobby" target="_top"' in page.content  # the Exit button
    assert player.user.player_profile.nickname == "Ann"
    for again in (Client().get(body["launch_url"]), Client().post(body["launch_url"])):
        assert again.status_code == 410 and b"already used" in again.content
    assert LaunchToken.objects.get().token_hash not in body["launch_url"]  # only its hash is kept


def test_opening_the_url_uses_nothing_so_a_link_preview_leaves_the_launch_to_the_player(
    api, partner, table, launch_body
):
    """A chat app's preview, a mail scanner or a prefetch gets the URL and posts nothing: before, that used the
    single-use token and the player then found "already used"."""
    url = launch_url(api, launch_body)
    preview = Client(HTTP_USER_AGENT="Slackbot-LinkExpanding 1.0")
    for _ in range(3):
        page = preview.get(url)
        assert page.status_code == 200 and "_auth_user_id" not in preview.session
        assert (page["Referrer-Policy"], page["X-Robots-Tag"]) == ("no-referrer", "noindex, nofollow")
        assert "no-cache" in page["Cache-Control"]
    assert LaunchToken.objects.get().used_at is None
    assert b'<form method="post" data-launch>' in page.content and b"js/launch.js" in page.content
    assert url.rsplit("/", 2)[-2].encode() not in page.content  # no link of the page carries the token on
    assert launch_open(Client(), url)["Location"] == "/tables/pb1/"
    assert LaunchToken.objects.get().used_at is not None


def test_a_cross_site_form_with_a_fresh_token_signs_nobody_in(api, partner, table, launch_body):
    """Login CSRF: whoever can get a launch URL for a player of their own (a partner's player asking for one) has a
    victim's browser post it from their site. The POST must return the value the launch page gave *that*
    browser, bound to the token by a cookie the attacker can neither read nor set: nobody is signed in and the
    token stays unused."""
    url = launch_url(api, launch_body)
    attacker = Client()
    attackers_proof = launch_proof(attacker.get(url))  # the attacker may open the page: its value is theirs
    victim = Client()
    cross_site = {"HTTP_ORIGIN": "https://attacker.example", "HTTP_SEC_FETCH_SITE": "cross-site"}
    for forged in ({}, {"launch_proof": ""}, {"launch_proof": attackers_proof}, {"launch_proof": "0" * 64}):
        refused = victim.post(url, forged, **cross_site)
        assert refused.status_code == 403, forged
        assert b'data-launch-refused="unconfirmed"' in refused.content and b"open the game again" in refused.content
        assert "_auth_user_id" not in victim.session
    victim.get(url)  # the victim's browser made to fetch the page (a hidden frame): its value stays unread
    assert victim.post(url, {"launch_proof": attackers_proof}, **cross_site).status_code == 403
    other_url = launch_url(api, launch_body)
    other_proof = launch_proof(victim.get(other_url))  # a value the victim holds is bound to its own link
    assert victim.post(url, {"launch_proof": other_proof}, **cross_site).status_code == 403
    assert "_auth_user_id" not in victim.session
    assert not LaunchToken.objects.filter(used_at__isnull=False).exists()
    assert launch_open(Client(), url)["Location"] == "/tables/pb1/"  # the player's own GET then POST


def test_the_launch_pages_value_is_bound_to_its_link_in_a_short_lived_cookie(api, partner, table, launch_body):
    """HttpOnly, only for the link's own path, gone when the token expires, and over https ``SameSite=None;
    Secure``: the launch opens in the partner's cross-site frame, where a Lax cookie would not go with the POST."""
    url = launch_url(api, launch_body)
    cookie = Client().get(url).cookies[LAUNCH_COOKIE]
    assert cookie["path"] == urlsplit(url).path and cookie["httponly"]
    assert 0 < int(cookie["max-age"]) <= 60 and cookie["samesite"] == "Lax" and not cookie["secure"]
    framed = Client().get(url, secure=True).cookies[LAUNCH_COOKIE]
    assert framed["samesite"] == "None" and framed["secure"]
    opened = launch_open(Client(), url)
    assert opened.status_code == 302 and opened.cookies[LAUNCH_COOKIE]["max-age"] == 0  # used: forgotten
    assert opened.cookies[LAUNCH_COOKIE]["path"] == urlsplit(url).path


def test_an_expired_or_unknown_token_is_refused_with_a_clear_page(api, partner, table, launch_body):
    url = launch_url(api, launch_body)
    LaunchToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    for method in ("get", "post"):
        expired = getattr(Client(), method)(url)
        assert expired.status_code == 410 and b"expired" in expired.content
        unknown = getattr(Client(), method)("/launch/not-a-token/")
        assert unknown.status_code == 404 and b"not valid" in unknown.content
    assert "_auth_user_id" not in Client().session


def test_launched_pages_may_be_framed_by_the_partners_origins_only(api, partner, table, launch_body):
    partner.frame_origins = "https://casino.example\nhttps://m.casino.example:8443"
    partner.save()
    browser = Client()
    url = launch_url(api, launch_body)
    assert "frame-ancestors https://casino.example " in Client().get(url)["Content-Security-Policy"]  # its page
    launch_open(browser, url)
    page = browser.get("/")
    policy = page["Content-Security-Policy"]
    assert "frame-ancestors https://casino.example https://m.casino.example:8443" in policy
    assert "'none'" not in policy.split("frame-ancestors")[1]
    assert "X-Frame-Options" not in page
    ordinary = Client().get("/")
    assert "frame-ancestors 'none'" in ordinary["Content-Security-Policy"]
    assert ordinary["X-Frame-Options"] == "DENY"


def test_another_partners_launch_page_shows_in_its_own_frame_in_a_launched_browser(api, partner, table, launch_body):
    """A browser launched by one partner opens another's game: that launch's page is the other partner's to
    frame, not the session's partner's."""
    partner.frame_origins = "https://a.example"
    partner.save()
    other = partner_make("globex")
    other.frame_origins = "https://b.example"
    other.save()
    browser = Client()
    launch_open(browser, launch_url(api, launch_body))
    url = launch_url(client_for(other), launch_body)
    assert "frame-ancestors https://b.example" in browser.get(url)["Content-Security-Policy"]
    assert "frame-ancestors https://b.example" in browser.post(url).headers.get("Content-Security-Policy", "")


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"currency": "USD"}, "currency_not_offered"),
        ({"currency": "JPY"}, "currency_not_offered"),
        ({"language": "english"}, "invalid_language"),
        ({"table": "nope"}, "unknown_table"),
        ({"return_url": "javascript:alert(1)"}, "invalid_return_url"),
        ({"player_id": "bad id"}, "invalid_request"),
        ({"nickname": "admin"}, "invalid_nickname"),
    ],
)
def test_bad_launch_requests_are_refused_and_create_nothing(api, partner, table, launch_body, change, code):
    UserFactory(username="admin", is_staff=True)
    response = api.post("/api/v1/sessions/", {**launch_body, **change})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert not LaunchToken.objects.exists()


def test_a_launch_never_signs_in_another_partners_player_or_staff(api, partner, table, launch_body):
    other = partner_make("globex")
    url = launch_url(client_for(other), launch_body)  # globex's u-42 is not acme's u-42
    browser = Client()
    launch_open(browser, url)
    user_id = int(browser.session["_auth_user_id"])
    assert PartnerPlayer.objects.get(user_id=user_id).partner == other
    assert not PartnerPlayer.objects.get(user_id=user_id).user.is_staff
    assert browser.get("/admin/").status_code == 302  # the admin wants a staff sign-in


def test_a_disabled_partners_launch_is_refused(api, partner, table, launch_body):
    url = launch_url(api, launch_body)
    partner.is_active = False
    partner.save()
    for method in ("get", "post"):
        response = getattr(Client(), method)(url)
        assert response.status_code == 403
    assert "_auth_user_id" not in Client().session


@pytest.mark.parametrize(("language", "page_language"), [("zh-CN", "zh-hans"), ("zh", "zh-hans"), ("en-GB", "en")])
def test_a_launch_opens_the_pages_in_its_language(api, partner, table, launch_body, language, page_language):
    browser = Client(HTTP_ACCEPT_LANGUAGE="fr-FR" if page_language == "zh-hans" else "zh-CN")
    opened = launch_open(browser, launch_url(api, {**launch_body, "language": language}))
    assert opened.cookies["django_language"].value == page_language
    assert f'<html lang="{page_language}">'.encode() in browser.get("/tables/pb1/").content
