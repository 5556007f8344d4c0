"""Game launch: a partner asks for a launch URL (``POST /api/v1/sessions/``); its single-use token, valid
``LAUNCH_TOKEN_SECONDS``, signs the browser that opens it in as that partner's player (``casino.players.launch``).

Only the token's SHA-256 is kept. Redeeming it is one conditional ``UPDATE``: of two browsers opening
the same URL at once, one signs in and the other is refused.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from kernel.errors import ErrorCode, PuntoError
from partners.identifiers import FRAME_ORIGIN, PartnerRejected, partner_actor_label
from partners.models import LaunchToken, Partner
from partners.services import partner_player_create
from tables.audit import audit_record
from tables.errors import TableError
from tables.models import Table
from tables.services import player_nickname_set

LANGUAGE = re.compile(r"^[a-z]{2}(-[A-Z]{2})?$")
MAX_RETURN_URL = 500
DEFAULT_LANGUAGE = "en"
AGAIN = "Go back to the casino and open the game again."


@dataclass(frozen=True)
class IssuedLaunch:
    token: str  # the whole token, for the URL: never stored
    expires_at: datetime
    launch: LaunchToken


class LaunchRefused(PuntoError):
    """A launch URL that signs nobody in: its partner disabled, or opened without its page's proof (and
    ``LaunchNotFound``, ``LaunchGone``). ``partner``: the launch's, if known (its page may frame the answer)."""

    http_status = 403

    def __init__(self, message: str, *, code: str | None = None, partner: Partner | None = None) -> None:
        super().__init__(message, code=code)
        self.partner = partner


class LaunchNotFound(LaunchRefused):
    http_status = 404
    default_code = ErrorCode.LAUNCH_UNKNOWN


class LaunchGone(LaunchRefused):
    """A launch URL already used, or expired."""

    http_status = 410


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def launch_session_create(
    *,
    partner: Partner,
    player_id: str,
    currency: str,
    nickname: str = "",
    language: str = "",
    table_code: str = "",
    return_url: str = "",
    reality_check_minutes: int | None = None,
    session_limit_minutes: int | None = None,
    loss_limit: Decimal | None = None,
) -> IssuedLaunch:
    """A launch URL's token for the partner's player (created the first time), with where it leads and the
    play session it opens (``play_session_start``'s reality checks and limits, checked by the API)."""
    if currency != partner.currency:
        raise PartnerRejected(
            f"{partner.code} plays in {partner.currency}, not {str(currency)[:10]!r}",
            code=ErrorCode.CURRENCY_NOT_OFFERED,
            details={"currency": str(currency)[:10], "partner_currency": partner.currency},
        )
    language = language or DEFAULT_LANGUAGE
    if not LANGUAGE.match(language):
        raise PartnerRejected(
            "a language is an ISO 639-1 code, e.g. 'en' or 'en-GB'",
            code=ErrorCode.INVALID_LANGUAGE,
            details={"language": language[:20]},
        )
    if table_code and not Table.objects.filter(code=table_code).exists():
        raise PartnerRejected(
            f"there is no table {table_code!r}", code=ErrorCode.UNKNOWN_TABLE, details={"table": table_code[:40]}
        )
    _return_url_check(return_url)
    player, _ = partner_player_create(partner=partner, external_id=player_id)
    if player.user.is_staff or player.user.is_superuser or not player.user.is_active:
        raise PartnerRejected(
            f"player {player_id!r} cannot be launched",
            code=ErrorCode.PLAYER_UNAVAILABLE,
            details={"player_id": player_id},
        )
    if nickname:
        try:
            player_nickname_set(user=player.user, nickname=nickname)
        except TableError as error:
            raise PartnerRejected(
                error.message, code=ErrorCode.INVALID_NICKNAME, details={"nickname": nickname[:40]}
            ) from None
    token = secrets.token_urlsafe(32)
    expires_at = timezone.now() + timedelta(seconds=settings.LAUNCH_TOKEN_SECONDS)
    launch = LaunchToken.objects.create(
        partner=partner,
        player=player,
        token_hash=token_hash(token),
        table_code=table_code,
        language=language,
        return_url=return_url,
        reality_check_minutes=reality_check_minutes,
        session_limit_minutes=session_limit_minutes,
        loss_limit=loss_limit,
        expires_at=expires_at,
    )
    audit_record(
        action="launch_created",
        actor_label=partner_actor_label(partner.code),
        obj=launch,
        after={
            "player_id": player.external_id,
            "table": table_code,
            "expires_at": expires_at.isoformat(),
            "reality_check_minutes": reality_check_minutes,
            "session_limit_minutes": session_limit_minutes,
            "loss_limit": None if loss_limit is None else str(loss_limit),
        },
    )
    return IssuedLaunch(token=token, expires_at=expires_at, launch=launch)


def _return_url_check(url: str) -> None:
    parts = urlsplit(url)
    if url and (
        len(url) > MAX_RETURN_URL
        or parts.scheme not in ("https", "http")
        or not parts.hostname
        or any(character.isspace() or ord(character) < 32 for character in url)
    ):
        raise PartnerRejected(
            "return_url is an http(s) URL of at most 500 characters",
            code=ErrorCode.INVALID_RETURN_URL,
            details={"return_url": url[:100]},
        )


def launch_token_check(*, token: str) -> LaunchToken:
    """The launch the token would open, without using it (the page that asks the browser to go on);
    ``LaunchRefused`` says why it would not."""
    return _usable(token, now=timezone.now())


def launch_token_redeem(*, token: str) -> LaunchToken:
    """Use the token, once: the launch it opens (its player, table, return URL). ``LaunchRefused`` says
    why not."""
    now = timezone.now()
    with transaction.atomic():
        launch = _usable(token, now=now)
        # Conditional: of two browsers opening the link at once, one only signs in.
        if not LaunchToken.objects.filter(pk=launch.pk, used_at__isnull=True).update(used_at=now):
            raise LaunchGone(
                f"This game link was already used. {AGAIN}", code=ErrorCode.LAUNCH_USED, partner=launch.partner
            )
        launch.used_at = now
        audit_record(
            action="launch_redeemed",
            actor_label=partner_actor_label(launch.partner.code),
            obj=launch,
            after={"player_id": launch.player.external_id},
        )
    return launch


def _usable(token: str, *, now: datetime) -> LaunchToken:
    digest = token_hash(token) if isinstance(token, str) and len(token) <= 100 else ""
    launch = LaunchToken.objects.filter(token_hash=digest).select_related("partner", "player__user").first()
    if launch is None:
        raise LaunchNotFound(f"This game link is not valid. {AGAIN}")
    if launch.used_at is not None:
        raise LaunchGone(
            f"This game link was already used. {AGAIN}", code=ErrorCode.LAUNCH_USED, partner=launch.partner
        )
    if launch.expires_at <= now:
        raise LaunchGone(f"This game link has expired. {AGAIN}", code=ErrorCode.LAUNCH_EXPIRED, partner=launch.partner)
    if not launch.partner.is_active:
        raise LaunchRefused("This casino's games are not available right now.", code=ErrorCode.PARTNER_DISABLED)
    return launch


def frame_origins(partner: Partner) -> list[str]:
    """The origins allowed to frame the partner's launched players' pages (``frame-ancestors``)."""
    return [origin for origin in partner.frame_origins.split() if FRAME_ORIGIN.fullmatch(origin)]
