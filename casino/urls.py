from django.contrib import admin
from django.contrib.auth.views import LoginView
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

from casino.partner_api import urls as partner_api_urls
from casino.players import launch, video, views
from casino.players.account import account_page
from casino.players.multi import multi_page
from casino.players.reality_check import reality_check
from casino.sign_in.two_factor import PlayerAuthenticationForm
from partners.api.urls import api_urlpatterns

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("metrics", views.metrics, name="metrics"),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the header's language menu
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),  # gettext() for static/js
    path("admin/", admin.site.urls),
    path("console/surveillance/", include("casino.surveillance.urls")),
    path("console/", include("casino.console.urls")),
    path("accounts/login/", LoginView.as_view(authentication_form=PlayerAuthenticationForm), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("account/", account_page, name="account"),
    path("account/reality-check/", reality_check, name="reality_check"),
    path("launch/<str:token>/", launch.launch, name="launch"),
    path("tables/", include(([path("<slug:code>/", views.table_page, name="table")], "play"))),
    path("tables/", include("casino.players.api_urls")),
    path("multi/", multi_page, name="multi"),
    path("video/<slug:code>/<str:name>", video.video_file, name="video"),  # the demo's test streams
    path("api/", include((api_urlpatterns(more_v1=partner_api_urls.v1), "api"))),
]
