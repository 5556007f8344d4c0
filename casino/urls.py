from django.contrib import admin
from django.urls import include, path

from casino import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("console/", include("tables.console_urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("tables/", include("tables.player_urls")),
    path("tables/", include("wagering.urls")),
    path("api/", include("wagering.api.urls")),
]
