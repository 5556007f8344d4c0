"""The partner API's conventions: API keys, player ids and the users behind them, its refusals.

An API key reads ``punto_<prefix>_<secret>``: the prefix finds the key, the SHA-256 of the
secret checks it; the key itself is shown once and never stored.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass

from django.core.exceptions import ValidationError

from kernel.errors import ErrorCode
from wagering.errors import BetRejected, WageringError

API_KEY_SCHEME = "punto"
API_KEY_PREFIX_BYTES = 6  # 12 hex characters
API_KEY_SECRET_BYTES = 32
# A partner's id for its player: what Django allows in a username, up to 100 characters.
PLAYER_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$"
_PLAYER_ID = re.compile(PLAYER_ID_PATTERN)
# Your id for a request: printable ASCII without spaces, as HTTP carries it in a header.
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]{1,255}$"
_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)


class PartnerRejected(WageringError):
    """A partner request refused: an invalid partner, player id, idempotency key or webhook."""


class PartnerConflict(PartnerRejected):
    """Refused by the state of things rather than by the request: a player id whose username is taken, a
    webhook endpoint already deleted."""

    http_status = 409


class WalletUnavailable(BetRejected):
    """A partner's seamless wallet did not confirm a bet's debit in time: nothing was placed, and the debit
    is rolled back."""

    http_status = 503
    default_code = ErrorCode.WALLET_UNAVAILABLE


def partner_actor_label(partner_code: str) -> str:
    """Who the audit log says acted, for a partner's requests."""
    return f"partner:{partner_code}"


@dataclass(frozen=True)
class ApiKeyParts:
    prefix: str
    secret: str

    @property
    def key(self) -> str:
        return f"{API_KEY_SCHEME}_{self.prefix}_{self.secret}"


def api_key_new() -> ApiKeyParts:
    return ApiKeyParts(
        prefix=secrets.token_hex(API_KEY_PREFIX_BYTES), secret=secrets.token_urlsafe(API_KEY_SECRET_BYTES)
    )


def api_key_parse(key: str) -> ApiKeyParts | None:
    """The prefix and secret of a key as a partner sends it, or None if it is not shaped like one."""
    scheme, _, rest = key.partition("_")
    prefix, _, secret = rest.partition("_")
    if scheme != API_KEY_SCHEME or not prefix or not secret:
        return None
    return ApiKeyParts(prefix=prefix, secret=secret)


def api_key_secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def player_id_valid(external_id: object) -> bool:
    return isinstance(external_id, str) and _PLAYER_ID.fullmatch(external_id) is not None


def idempotency_key_valid(key: object) -> bool:
    return isinstance(key, str) and _IDEMPOTENCY_KEY.fullmatch(key) is not None


def player_username(*, partner_code: str, external_id: str) -> str:
    """The username of a partner's player: unique, and valid for Django (partner codes hold no '@')."""
    return f"{external_id}@{partner_code}"


# An origin that may frame a launched player's page: scheme, host and port, nothing else.
FRAME_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?")


def frame_origins_validator(value: str) -> None:
    """For the partner's ``frame_origins``: each line an origin (``https://casino.example``)."""
    wrong = [origin for origin in value.split() if not FRAME_ORIGIN.fullmatch(origin)]
    if wrong:
        raise ValidationError(f"not an origin (scheme://host[:port], no path): {', '.join(wrong[:3])}")
