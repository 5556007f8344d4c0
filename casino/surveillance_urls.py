"""The surveillance pages, included under /console/surveillance/ (namespace "surveillance")."""

from django.urls import path

from casino import surveillance_views

app_name = "surveillance"
urlpatterns = [
    path("", surveillance_views.floor, name="floor"),
    path("<int:shoe_id>/", surveillance_views.shoe_history, name="shoe"),
]
