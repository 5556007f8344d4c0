"""The table page's JSON endpoints, included under /tables/ (namespace "players")."""

from django.urls import path

from casino.players import api as views
from casino.players import rng

app_name = "players"
urlpatterns = [
    path("<slug:code>/bets/", views.bets, name="bets"),
    path("<slug:code>/bets/undo/", views.bets_undo, name="bets_undo"),
    path("<slug:code>/bets/remove/", views.bets_remove, name="bets_remove"),
    path("<slug:code>/bets/rebet/", views.bets_rebet, name="bets_rebet"),
    path("<slug:code>/history/", views.history, name="history"),
    path("<slug:code>/deal/", rng.rng_deal, name="rng_deal"),
]
