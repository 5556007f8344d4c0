from django.urls import re_path

from roadmaps.consumers import TableConsumer

websocket_urlpatterns = [re_path(r"^ws/tables/(?P<code>[-a-zA-Z0-9_]+)/$", TableConsumer.as_asgi())]
