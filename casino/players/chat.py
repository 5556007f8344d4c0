"""The table's chat: a signed-in player's message, over the table's socket, to everyone at the table as a
``chat`` event with ``user`` (the sender's display name, ``tables.players``: never a username) and ``text``:
one line of printable text of at most ``CHAT_MAX_LENGTH`` characters, one message a second per player."""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.layers import BaseChannelLayer
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache

from kernel.errors import ErrorCode
from kernel.live import event_envelope, live_message, table_group
from tables.selectors import player_display_name

CHAT_MAX_LENGTH = 200
CHAT_INTERVAL_SECONDS = 1  # one message a second per player (across connections sharing the cache)


async def chat_send(
    *, layer: BaseChannelLayer, user: AbstractBaseUser | AnonymousUser | None, table_code: str, text: object
) -> tuple[ErrorCode, str] | None:
    """Pass the player's message on to the table: None once sent, else the refusal's code and message."""
    if user is None or not user.is_authenticated:
        return ErrorCode.CHAT_SIGN_IN, "sign in to chat"
    line = _chat_line(text)
    if not line or len(line) > CHAT_MAX_LENGTH:
        return ErrorCode.CHAT_INVALID, f"a chat message is text of 1 to {CHAT_MAX_LENGTH} characters"
    if not await cache.aadd(f"chat:{user.pk}", True, timeout=CHAT_INTERVAL_SECONDS):
        return ErrorCode.CHAT_TOO_FAST, "one chat message a second, please"
    name = await database_sync_to_async(player_display_name)(user=user)
    event = event_envelope(event_type="chat", data={"user": name, "text": line}, table_code=table_code)
    await layer.group_send(table_group(table_code), live_message(event))
    return None


def _chat_line(text: object) -> str:
    """A chat message as one line: whitespace runs become one space, other unprintable characters go."""
    if not isinstance(text, str):
        return ""
    return "".join(char for char in " ".join(text.split()) if char.isprintable())
