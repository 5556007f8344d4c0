"""The surveillance pages, included under /console/surveillance/ (namespace "surveillance")."""

from django.urls import path

from casino.surveillance import views

app_name = "surveillance"
urlpatterns = [
    path("", views.floor, name="floor"),
    path("<int:shoe_id>/", views.shoe_history, name="shoe"),
]
