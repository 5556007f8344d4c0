"""WebSocket routes of every app."""

from roadmaps.routing import websocket_urlpatterns as roadmap_routes

websocket_urlpatterns = [*roadmap_routes]
