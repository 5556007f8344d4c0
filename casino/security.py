"""Security pieces of the project: the Content-Security-Policy header and the sign-in lock-out page."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKED_OUT_STATUS = 429
LAUNCH_SESSION_KEY = "launch"  # a session opened by a partner's game launch (casino.launch)


class ContentSecurityPolicyMiddleware:
    """Adds ``settings.CONTENT_SECURITY_POLICY`` to every response that does not set its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        return response


def frame_ancestors_allow(response: HttpResponse, origins: list[str]) -> None:
    """Let these origins (and only these) frame the response: its CSP's ``frame-ancestors``, no X-Frame-Options."""
    if not origins:
        return
    policy = response.headers.get("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
    directives = [part.strip() for part in policy.split(";") if not part.strip().startswith("frame-ancestors")]
    response.headers["Content-Security-Policy"] = "; ".join([*directives, f"frame-ancestors {' '.join(origins)}"])
    response.headers.pop("X-Frame-Options", None)
    response.xframe_options_exempt = True


class LaunchedSessionMiddleware:
    """The pages of a session opened by a partner's game launch may be framed by the partner's origins, and
    its cookies go with requests from inside that frame (``SameSite=None``, over https only: a browser
    refuses it without ``Secure``). Listed before the session middleware, so it sees the cookies it set."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        session = getattr(request, "session", None)
        launched = session.get(LAUNCH_SESSION_KEY) if session is not None else None
        if not isinstance(launched, dict):
            return response
        frame_ancestors_allow(response, launched.get("frame_origins") or [])
        if request.is_secure():
            for name in (settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME):
                if name in response.cookies:
                    response.cookies[name]["samesite"] = "None"
                    response.cookies[name]["secure"] = True
        return response


def lockout_minutes() -> int:
    return round(settings.AXES_COOLOFF_TIME.total_seconds() / 60)


def sign_in_locked_out(request: HttpRequest, *args: object) -> HttpResponse:
    """django-axes' answer to a sign-in while the username is locked out from this address (player or staff).

    Every attempt during the lock-out starts the cool-off again, so the wait is the whole period.
    """
    return render(
        request,
        "registration/locked_out.html",
        {"minutes": lockout_minutes(), "failures": settings.AXES_FAILURE_LIMIT},
        status=LOCKED_OUT_STATUS,
    )
