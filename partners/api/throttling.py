"""Requests per partner (all its keys together), counted in the shared cache so every process agrees."""

from __future__ import annotations

from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from partners.models import PartnerApiKey


class PartnerRateThrottle(SimpleRateThrottle):
    """The partner's own ``rate_limit`` if it has one, else ``DEFAULT_THROTTLE_RATES["partner"]``."""

    scope = "partner"
    # One cache client for the whole process: ``django.core.cache.cache`` is one per thread, and under
    # ASGI every request has a thread of its own, so each request would open a new Redis connection.
    cache = caches.create_connection(DEFAULT_CACHE_ALIAS)

    def __init__(self) -> None:  # the rate depends on the partner: it is read in allow_request
        pass

    def allow_request(self, request: Request, view) -> bool:
        if not isinstance(request.auth, PartnerApiKey):
            return True  # refused before this by the permission
        self.rate = request.auth.partner.rate_limit or api_settings.DEFAULT_THROTTLE_RATES[self.scope]
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": request.auth.partner_id}
