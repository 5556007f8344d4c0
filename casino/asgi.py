"""ASGI entry point: HTTP through Django (its synchronous stack in worker threads, ``kernel.http``),
WebSockets through Channels, signed in by the session as pages are and held to the same staff rules
(``casino.sign_in.two_factor.StaffSocketMiddleware``)."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
django.setup(set_prefix=False)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from casino.routing import websocket_urlpatterns  # noqa: E402
from casino.sign_in.two_factor import StaffSocketMiddleware  # noqa: E402
from kernel.collector import CollectorTunedAtStartup  # noqa: E402
from kernel.database_roles import migrate_url_warn  # noqa: E402
from kernel.http import http_application  # noqa: E402
from kernel.socket_shedding import sockets_shedding_start  # noqa: E402

migrate_url_warn("web")
sockets_shedding_start()
application = CollectorTunedAtStartup(  # the server's start freezes what start-up made (kernel.collector)
    ProtocolTypeRouter(
        {
            "http": http_application(),
            "websocket": AllowedHostsOriginValidator(
                AuthMiddlewareStack(StaffSocketMiddleware(URLRouter(websocket_urlpatterns)))
            ),
        }
    )
)
