"""WebSocket routes: the table's socket, with the player's bet requests over it (``casino.players.table_socket``), and
the lobby's, every table's public events on one socket (``casino.players.lobby_socket``), and a player's multi-table
socket, up to four tables with bets (``casino.players.multi_socket``)."""

from django.urls import re_path

from casino.players.lobby_socket import LobbyConsumer
from casino.players.multi_socket import MultiTableConsumer
from casino.players.table_socket import PlayerTableConsumer

websocket_urlpatterns = [
    re_path(r"^ws/tables/(?P<code>[-a-zA-Z0-9_]+)/$", PlayerTableConsumer.as_asgi()),
    re_path(r"^ws/lobby/$", LobbyConsumer.as_asgi()),
    re_path(r"^ws/multi/$", MultiTableConsumer.as_asgi()),
]
