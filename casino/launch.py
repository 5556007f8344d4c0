"""Opening a game launch URL (``/launch/<token>/``, from ``POST /api/v1/sessions/``): the browser is signed
in as the partner's player, in a session bound to that partner (``LAUNCH_SESSION_KEY``: its return URL and
the origins that may frame its pages, ``casino.security.LaunchedSessionMiddleware``), and goes to the lobby
or the table named. A token already used, expired or unknown gets a page that says so."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_supported_language_variant
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from casino.security import LAUNCH_SESSION_KEY, frame_ancestors_allow
from partners.launch import LaunchRefused, frame_origins, launch_token_redeem
from partners.models import PartnerPlayer
from partners.selectors import seamless_player

REFUSED_STATUS = {"unknown": 404, "used": 410, "expired": 410, "partner_disabled": 403}


def launched_seamless_player(request: HttpRequest) -> PartnerPlayer | None:
    """The partner's player whose money a seamless wallet holds, for a session opened by a launch (only
    those can be: a partner's player has no password)."""
    return seamless_player(user=request.user) if request.session.get(LAUNCH_SESSION_KEY) else None


@never_cache
@require_GET
def launch(request: HttpRequest, token: str) -> HttpResponse:
    try:
        opened = launch_token_redeem(token=token)
    except LaunchRefused as refused:
        response = render(
            request,
            "launch_refused.html",
            {"message": refused.message, "code": refused.code},
            status=REFUSED_STATUS[refused.code],
        )
        if refused.partner is not None:  # the page shows in the partner's frame
            frame_ancestors_allow(response, frame_origins(refused.partner))
        return response
    partner = opened.partner
    login(request, opened.player.user, backend=settings.PERMISSION_BACKEND)  # a new session, for this player only
    request.session[LAUNCH_SESSION_KEY] = {
        "partner": partner.code,
        "partner_name": partner.name,
        "return_url": opened.return_url,
        "language": opened.language,
        "frame_origins": frame_origins(partner),
    }
    destination = reverse("play:table", args=[opened.table_code]) if opened.table_code else reverse("home")
    response = redirect(destination)
    response.headers["Referrer-Policy"] = "no-referrer"  # the token stays out of the next page's Referer
    language_choose(response, opened.language)
    return response


def language_choose(response: HttpResponse, language: str) -> None:
    """The launch's language (``zh``, ``zh-CN``, ``en-GB``...), if the site speaks it, as the language cookie
    (the header's menu changes it); else the browser's language stays."""
    try:
        code = get_supported_language_variant(language.lower())
    except LookupError:
        return
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
