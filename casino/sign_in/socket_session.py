"""A WebSocket signed in by its session, as a page is: channels' ``AuthMiddlewareStack`` with the user read in the
sockets' database threads (``kernel.socket_database``), not channels' one thread that every socket of the process
queues on (a crowd reconnecting at once waited there)."""

from __future__ import annotations

from collections.abc import Callable

from channels.auth import AuthMiddleware
from channels.auth import get_user as channels_get_user
from channels.sessions import CookieMiddleware, SessionMiddleware

from kernel.socket_database import socket_database

# channels' own check (the session's user, its backend, its password's hash), without its thread hop.
socket_user = socket_database(channels_get_user.func)


class SocketAuthMiddleware(AuthMiddleware):
    async def resolve_scope(self, scope: dict) -> None:
        scope["user"]._wrapped = await socket_user(scope)


def socket_sign_in_stack(inner: Callable) -> Callable:
    """Cookies, the session, then its user into ``scope["user"]``: ``AuthMiddlewareStack``'s three layers."""
    return CookieMiddleware(SessionMiddleware(SocketAuthMiddleware(inner)))
