"""How players appear to one another: a display name, never their username.

A username identifies an account (and a partner player's, ``<partner's player id>@<partner>``, would hand
the partner's ids to everyone at the table), so every broadcast (table events, chat) carries display
names only: the nickname the player chose, else a default that reveals nothing: ``al***`` (a house
player's username's first two characters), or ``Player 7F3A`` (a keyed hash of the user id) for a
username with an ``@`` (a partner player's, or an e-mail address), of which nothing is shown.
"""

from __future__ import annotations

import re

from django.utils.crypto import salted_hmac

NICKNAME_MIN_LENGTH = 3
NICKNAME_MAX_LENGTH = 20
# ASCII letters and digits, with single spaces, dots, dashes or underscores between them: no look-alike
# letters of other scripts ("dеaler" with a Cyrillic е), no control or invisible characters.
_NICKNAME = re.compile(r"[A-Za-z0-9]+(?:[ ._-][A-Za-z0-9]+)*")
# Names only staff (or the house) may appear under, read with look-alike digits as letters ("D3aler").
RESERVED_NAME_PARTS = (
    "dealer",
    "croupier",
    "pitboss",
    "admin",
    "staff",
    "surveillance",
    "security",
    "cashier",
    "manager",
    "moderator",
    "support",
    "official",
    "system",
    "casino",
    "punto",
)
_LOOK_ALIKE_DIGITS = str.maketrans("013457", "oleast")
# The default of players whose username is not shown at all: a nickname cannot take that form.
_DEFAULT_FORM = re.compile(r"player[ ._-]*[0-9a-f]{4}", re.IGNORECASE)
_DISPLAY_NAME_SALT = "tables.players.display_name"


def default_display_name(*, user_id: int, username: str) -> str:
    """The display name of a player without a nickname (see the module's docstring)."""
    if "@" in username:
        return f"Player {salted_hmac(_DISPLAY_NAME_SALT, str(user_id)).hexdigest()[:4].upper()}"
    return f"{username[:2]}***"


def nickname_problem(nickname: str, *, staff_usernames: set[str]) -> str | None:
    """Why ``nickname`` cannot be a player's (``staff_usernames`` casefolded), or None if it can."""
    if not NICKNAME_MIN_LENGTH <= len(nickname) <= NICKNAME_MAX_LENGTH:
        return f"a nickname has {NICKNAME_MIN_LENGTH} to {NICKNAME_MAX_LENGTH} characters"
    if not _NICKNAME.fullmatch(nickname):
        return "a nickname is letters and digits (A-Z, 0-9), with single spaces, dots, dashes or underscores between"
    plain = re.sub(r"[ ._-]", "", nickname.casefold())
    read_as_letters = plain.translate(_LOOK_ALIKE_DIGITS)
    if any(part in plain or part in read_as_letters for part in RESERVED_NAME_PARTS):
        return "a nickname cannot pass for the casino's staff (dealer, pit boss, support ...)"
    if _DEFAULT_FORM.fullmatch(nickname) or nickname.casefold() in staff_usernames:
        return "a nickname cannot pass for another player or a member of staff"
    return None


def dealer_display_name(dealer) -> str:
    """A dealer appears to players by first name, never by username (a staff username is half a sign-in)."""
    return dealer.get_short_name() or "Dealer"
