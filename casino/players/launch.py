"""Opening a game launch URL (``/launch/<token>/``, from ``POST /api/v1/sessions/``): the browser is signed
in as the partner's player, in a session bound to that partner (``LAUNCH_SESSION_KEY``: its return URL and
the origins that may frame its pages, ``kernel.security.LaunchedSessionMiddleware``), and goes to the lobby
or the table named. A token already used, expired or unknown gets a page that says so.

The launch's play session (``reality_check_minutes``, ``session_limit_minutes``, ``loss_limit``) starts with
the sign-in (``wagering.protection.services.play_session_start``).

Opening the URL (GET) uses nothing: it answers a page whose script posts back at once (a button without
script), and that POST uses the token. A chat app's link preview, a mail scanner or a prefetch, which fetch
the URL but post nothing, no longer use up the player's launch.

The POST must return the value its page gave that browser (``launch_proof``: an HMAC of the token and a nonce
kept in a cookie for the link's path alone, until the token expires), else nothing happens: a form on another
site posting a fresh token of the attacker's would sign the victim's browser in as the attacker's player (login
CSRF), and its author can neither read the victim's page nor set the victim's cookie. The cookie is
``SameSite=None; Secure`` over https, as a launched session's are (``LaunchedSessionMiddleware``): the launch
opens in the partner's cross-site frame, where a Lax cookie would not go with the POST."""

from __future__ import annotations

import math
import secrets

from django.conf import settings
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import get_supported_language_variant
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from kernel.errors import ErrorCode
from kernel.security import LAUNCH_SESSION_KEY, frame_ancestors_allow
from partners.launch import LaunchRefused, frame_origins, launch_token_check, launch_token_redeem
from partners.models import LaunchToken, Partner, PartnerPlayer
from partners.selectors.accounts import seamless_player
from wagering.protection.services import play_session_start

LAUNCH_COOKIE = "punto_launch"
UNCONFIRMED = "This game link opens from its own page only. Go back to the casino and open the game again."


def launched_seamless_player(request: HttpRequest) -> PartnerPlayer | None:
    """The partner's player whose money a seamless wallet holds, for a session opened by a launch (only
    those can be: a partner's player has no password)."""
    return seamless_player(user=request.user) if request.session.get(LAUNCH_SESSION_KEY) else None


@never_cache
@require_http_methods(["GET", "POST"])
@csrf_exempt  # the token is the credential, and a browser may hold no cookie of ours yet (a partner's frame)
def launch(request: HttpRequest, token: str) -> HttpResponse:
    try:
        if request.method == "GET":
            return _page(request, token, launch_token_check(token=token))
        if not _proof_returned(request, token):
            raise LaunchRefused(
                UNCONFIRMED, code=ErrorCode.LAUNCH_UNCONFIRMED, partner=launch_token_check(token=token).partner
            )
        opened = launch_token_redeem(token=token)
    except LaunchRefused as refused:
        context = {"message": refused.message, "code": refused.code}
        response = render(request, "launch_refused.html", context, status=refused.http_status)
        return _framed(response, refused.partner)
    partner = opened.partner
    login(request, opened.player.user, backend=settings.PERMISSION_BACKEND)  # a new session, for this player only
    # The sign-in started a play session of the player's own settings: the launch's takes its place.
    play_session_start(
        user=opened.player.user,
        reality_check_minutes=opened.reality_check_minutes,
        session_limit_minutes=opened.session_limit_minutes,
        loss_limit=opened.loss_limit,
    )
    request.session[LAUNCH_SESSION_KEY] = {
        "partner": partner.code,
        "partner_name": partner.name,
        "return_url": opened.return_url,
        "language": opened.language,
        "frame_origins": frame_origins(partner),
    }
    destination = reverse("play:table", args=[opened.table_code]) if opened.table_code else reverse("home")
    response = _private(redirect(destination))
    response.delete_cookie(LAUNCH_COOKIE, path=request.path, samesite=_cookie_samesite(request))
    language_choose(response, opened.language)
    return response


def _page(request: HttpRequest, token: str, launch: LaunchToken) -> HttpResponse:
    """The page whose form posts back its proof, and the cookie that makes it this browser's."""
    nonce = secrets.token_urlsafe(24)
    response = render(request, "launch.html", {"launch_proof": _proof(token, nonce)})
    response.set_cookie(
        LAUNCH_COOKIE,
        nonce,
        max_age=max(1, math.ceil((launch.expires_at - timezone.now()).total_seconds())),
        path=request.path,
        secure=request.is_secure(),
        httponly=True,
        samesite=_cookie_samesite(request),
    )
    return _private(_framed(response, launch.partner))


def _proof(token: str, nonce: str) -> str:
    return salted_hmac("casino.players.launch.proof", f"{token}:{nonce}", algorithm="sha256").hexdigest()


def _proof_returned(request: HttpRequest, token: str) -> bool:
    nonce, proof = request.COOKIES.get(LAUNCH_COOKIE), request.POST.get("launch_proof")
    return bool(nonce and proof) and constant_time_compare(proof, _proof(token, nonce))


def _cookie_samesite(request: HttpRequest) -> str:
    """Sent from the partner's cross-site frame over https; over plain http (development) a browser refuses
    ``None`` without ``Secure``."""
    return "None" if request.is_secure() else "Lax"


def _framed(response: HttpResponse, partner: Partner | None) -> HttpResponse:
    """A launch's pages show in the partner's frame."""
    if partner is not None:
        frame_ancestors_allow(response, frame_origins(partner))
    return response


def _private(response: HttpResponse) -> HttpResponse:
    """The token stays out of the next page's Referer and out of search engines."""
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
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
