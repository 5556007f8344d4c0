"""WebSocket routes: the table's socket, with the player's bet requests over it (``casino.table_socket``)."""

from django.urls import re_path

from casino.table_socket import PlayerTableConsumer

websocket_urlpatterns = [re_path(r"^ws/tables/(?P<code>[-a-zA-Z0-9_]+)/$", PlayerTableConsumer.as_asgi())]
