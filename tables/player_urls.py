"""The players' table pages, included under /tables/ (namespace "play")."""

from django.urls import path

from tables import views

app_name = "play"
urlpatterns = [path("<slug:code>/", views.table_page, name="table")]
