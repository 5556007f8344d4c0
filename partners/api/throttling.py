"""Requests per partner (all its keys together), counted in the shared cache so every process agrees."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from kernel.rate_counts import counts_cache, sliding_window_admit
from partners.models import PartnerApiKey


class PartnerRateThrottle(SimpleRateThrottle):
    """The partner's own ``rate_limit`` if it has one, else ``DEFAULT_THROTTLE_RATES["partner"]``: DRF's sliding
    window, counted in one round trip (``kernel.rate_counts``)."""

    scope = "partner"
    cache = counts_cache
    cache_format = "throttle-window:%(scope)s:%(ident)s"  # a sorted set on Redis, not DRF's pickled list

    def __init__(self) -> None:  # the rate depends on the partner: it is read in allow_request
        pass

    def allow_request(self, request: Request, view) -> bool:
        if not isinstance(request.auth, PartnerApiKey):
            return True  # refused before this by the permission
        self.rate = request.auth.partner.rate_limit or api_settings.DEFAULT_THROTTLE_RATES[self.scope]
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.now = self.timer()
        self.counted = sliding_window_admit(
            key=self.get_cache_key(request, view), limit=self.num_requests, duration=self.duration, now=self.now
        )
        return self.counted.allowed

    def wait(self) -> float | None:
        """DRF's: the oldest request's time left in the window, shared among the requests still available."""
        available = self.num_requests - self.counted.count + 1
        if available <= 0:
            return None
        return (self.duration - (self.now - self.counted.oldest)) / available

    def get_cache_key(self, request: Request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": request.auth.partner_id}
