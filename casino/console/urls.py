"""The dealer console, included under /console/ (namespace "console"): its page, and one URL per step
(``casino.console.views.STEPS``), named after it, all served by the one step view; and the pit screen."""

from django.urls import path

from casino.console import pit, views

STEP_ROUTES = {
    "shoe_start": "shoe/start/",
    "shoe_cut_start": "shoe/cut-and-start/",
    "shoe_cut_card_out": "shoe/cut-card-out/",
    "shoe_finish": "shoe/finish/",
    "coup_open": "coup/open/",
    "coup_close_betting": "coup/close-betting/",
    "coup_card": "coup/card/",
    "coup_resolve": "coup/resolve/",
    "patron_seat": "seats/seat/",
    "patron_move": "seats/move/",
    "patron_unseat": "seats/unseat/",
    "seat_bet": "seats/bet/",
    "seat_buy_in": "seats/buy-in/",
    "seat_bets_reduce": "seats/reduce/",
    "seat_bet_override": "seats/override/",
    "tray_count": "tray/count/",
    "tray_fill": "tray/fill/",
    "tray_credit": "tray/credit/",
    "hand_shown_by_dealer": "coup/hand-shown-by-dealer/",
    "banker_shown_first": "coup/banker-shown-first/",
    "shoe_holder_pass": "seats/shoe-pass/",
    "shoe_holder_decline": "seats/shoe-decline/",
}

app_name = "console"
urlpatterns = [
    path("", views.table_list, name="tables"),
    path("floor/pit/", pit.pit_screen, name="pit"),  # two segments: never a table's code
    path("<slug:code>/", views.table_console, name="table"),
    path("<slug:code>/status/", views.table_status, name="status"),
    *(
        path(f"<slug:code>/{route}", views.console_step, {"step": step}, name=step)
        for step, route in STEP_ROUTES.items()
    ),
]
