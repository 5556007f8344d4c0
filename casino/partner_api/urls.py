"""Version 1 endpoints of the partner API served from here, added to ``partners.api.urls`` by ``casino.urls``."""

from __future__ import annotations

from django.urls import path

from casino.partner_api import deal

v1 = [
    path("tables/<slug:code>/deal/", deal.TableDealView.as_view(), name="deal"),
]
