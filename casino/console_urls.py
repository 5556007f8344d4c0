"""The dealer console, included under /console/ (namespace "console")."""

from django.urls import path

from casino import console

app_name = "console"
urlpatterns = [
    path("", console.table_list, name="tables"),
    path("<slug:code>/", console.table_console, name="table"),
    path("<slug:code>/shoe/start/", console.shoe_start, name="shoe_start"),
    path("<slug:code>/shoe/cut-card-out/", console.shoe_cut_card_out, name="shoe_cut_card_out"),
    path("<slug:code>/shoe/finish/", console.shoe_finish, name="shoe_finish"),
    path("<slug:code>/coup/open/", console.coup_open, name="coup_open"),
    path("<slug:code>/coup/close-betting/", console.coup_close_betting, name="coup_close_betting"),
    path("<slug:code>/coup/card/", console.coup_card, name="coup_card"),
    path("<slug:code>/coup/resolve/", console.coup_resolve, name="coup_resolve"),
]
