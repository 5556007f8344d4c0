"""Security pieces of the project: the Content-Security-Policy header and the sign-in lock-out page."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKED_OUT_STATUS = 429


class ContentSecurityPolicyMiddleware:
    """Adds ``settings.CONTENT_SECURITY_POLICY`` to every response that does not set its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
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
