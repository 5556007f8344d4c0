from django.contrib import admin
from django.urls import include, path

from casino import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("console/", include("tables.console_urls")),
    path("api/", include("wagering.api.urls")),
]
