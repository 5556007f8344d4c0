"""Security pieces of the project: the Content-Security-Policy header and the sign-in lock-out page."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKED_OUT_STATUS = 429
LAUNCH_SESSION_KEY = "launch"  # a session opened by a partner's game launch (casino.players.launch)


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
    response.frame_ancestors_chosen = True  # by the view: the session's launch does not override it


DEFAULT_PORTS = {"http": 80, "https": 443}
# What a URL's origin may bring into a CSP: a scheme, a host and a port (no ';', ',', space, quote or non-ASCII).
CSP_ORIGIN = re.compile(r"https?://(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?")


def url_origin(url: str) -> str:
    """``https://cdn.example:8443`` of a URL, as the browser writes its origin (host lowercased, the scheme's
    default port left out): a CSP source that allows that origin only."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = "" if parts.port in (None, DEFAULT_PORTS.get(parts.scheme.lower())) else f":{parts.port}"
    return f"{parts.scheme.lower()}://{host}{port}"


def csp_sources_add(response: HttpResponse, sources: dict[str, list[str]]) -> None:
    """Allow these sources too in the response's CSP, each directive's (a directive it lacks starts from
    ``default-src``'s sources, as the browser would have read it)."""
    if not all(CSP_ORIGIN.fullmatch(source) or source == "blob:" for added in sources.values() for source in added):
        raise ValueError(f"not a CSP origin: {sources}")  # never a directive or a wildcard smuggled in
    policy = response.headers.get("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
    directives = [part.split() for part in policy.split(";") if part.strip()]
    default = next((values for name, *values in directives if name == "default-src"), [])
    for name, added in sources.items():
        directive = next((directive for directive in directives if directive[0] == name), None)
        if directive is None:
            directive = [name, *default]
            directives.append(directive)
        directive.extend(source for source in added if source not in directive)
    response.headers["Content-Security-Policy"] = "; ".join(" ".join(directive) for directive in directives)


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
        if not getattr(response, "frame_ancestors_chosen", False):  # another partner's launch page: its own
            frame_ancestors_allow(response, launched.get("frame_origins") or [])
        if request.is_secure():
            for name in (settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME, settings.LANGUAGE_COOKIE_NAME):
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
