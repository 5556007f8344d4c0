"""WebSocket routes of every app."""

websocket_urlpatterns: list = []
