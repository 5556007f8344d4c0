"""``/api/``: the schema, its docs page, and version 1 of the partner API (included by ``casino.urls`` as the
``api`` namespace, with the endpoints of version 1 that the project serves itself)."""

from __future__ import annotations

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.permissions import AllowAny

from partners.api import accounts, protection, reconciliation, sessions, views

PUBLIC = {"authentication_classes": [], "permission_classes": [AllowAny]}

v1 = [
    path("tables/", views.TableListView.as_view(), name="tables"),
    path("tables/<slug:code>/", views.TableDetailView.as_view(), name="table"),
    path("tables/<slug:code>/shoes/<int:number>/", views.ShoeView.as_view(), name="shoe"),
    path("tables/<slug:code>/rounds/", accounts.TableRoundsView.as_view(), name="table-rounds"),
    path("players/", views.PlayerCreateView.as_view(), name="players"),
    path("players/<str:player_id>/", views.PlayerDetailView.as_view(), name="player"),
    path("players/<str:player_id>/deposits/", views.DepositView.as_view(), name="deposits"),
    path("players/<str:player_id>/withdrawals/", views.WithdrawalView.as_view(), name="withdrawals"),
    path("players/<str:player_id>/exclusion/", protection.ExclusionView.as_view(), name="exclusion"),
    path("players/<str:player_id>/bets/", views.PlayerBetsView.as_view(), name="bets"),
    path("players/<str:player_id>/rounds/", views.PlayerRoundsView.as_view(), name="player-rounds"),
    path("rounds/<str:round_id>/", views.RoundView.as_view(), name="round"),
    path("sessions/", sessions.SessionCreateView.as_view(), name="sessions"),
    path("reconciliation/", reconciliation.ReconciliationView.as_view(), name="reconciliation"),
    path("float/", accounts.FloatView.as_view(), name="float"),
    path("float/statement/", accounts.FloatStatementView.as_view(), name="float-statement"),
    path("webhooks/", views.WebhookListView.as_view(), name="webhooks"),
    path("webhooks/<int:webhook_id>/", views.WebhookDetailView.as_view(), name="webhook"),
]


def api_urlpatterns(*, more_v1: tuple = ()) -> list:
    """``/api/``'s patterns; ``more_v1``: version 1's endpoints served by the project above partners (its
    ``casino.urls``: ``casino.partner_api``), which this package may not import."""
    return [
        path("schema/", SpectacularAPIView.as_view(**PUBLIC), name="schema"),
        # Split: the page's script is a file of its own (no inline script under the Content-Security-Policy).
        path(
            "docs/",
            SpectacularSwaggerSplitView.as_view(url_name="api:schema", template_name="api/swagger_ui.html", **PUBLIC),
            name="docs",
        ),
        path("v1/", include([*v1, *more_v1])),
        re_path(r"^", views.NotFoundView.as_view(), name="not-found"),
    ]
