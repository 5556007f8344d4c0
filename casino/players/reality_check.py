"""The reality check's endpoint (``/account/reality-check/``, session auth + CSRF), for the table page's modal:
GET the session so far (``session_summary``) with the player's protection as the pages know it
(``protection_public``); POST ``{"answer": "continue" | "leave" | "history"}`` answers a due check, and betting
goes on until the next one. Refusals as the table page's endpoints answer them (``{"error": {...}}``: 400, 401,
403 for staff)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from casino.players.api import json_body
from casino.players.errors import NotSignedIn, RequestRefused, StaffAccount
from kernel.errors import ErrorCode, PuntoError
from partners.player_events import player_reality_check_tell
from partners.selectors.accounts import player_currency
from wagering.protection.services import protection_public, reality_check_answer, session_summary
from wagering.protection.standing import player_protection


def reality_check_answered(*, user: AbstractBaseUser, answer: str) -> dict:
    """The player's answer to their due reality check, whatever page sent it: the one place it is carried out
    (``wagering.protection.services.reality_check_answer``) and, for a partner's player, told to the partner
    (``player.reality_check``) in the same transaction. The session's summary, as the check showed it."""
    with transaction.atomic():
        summary = reality_check_answer(user=user, answer=answer)
        player_reality_check_tell(user=user, answer=answer, summary=summary)
    return summary


@require_http_methods(["GET", "POST"])
def reality_check(request: HttpRequest) -> JsonResponse:
    try:
        if not request.user.is_authenticated:
            raise NotSignedIn("sign in to play")
        if request.user.is_staff:
            raise StaffAccount("staff accounts do not play: sign in as a player")
        if request.method == "POST":
            answer = json_body(request).get("answer")
            if not isinstance(answer, str):
                raise RequestRefused('send the answer as {"answer": "continue"}', code=ErrorCode.BAD_JSON)
            reality_check_answered(user=request.user, answer=answer)
        return JsonResponse(_standing(request.user))
    except PuntoError as error:
        return JsonResponse({"error": error.as_dict()}, status=error.http_status)


def _standing(user: AbstractBaseUser) -> dict:
    protection = player_protection(user_id=user.pk, at=timezone.now())
    return {
        "session_summary": session_summary(protection=protection) if protection is not None else None,
        "currency": player_currency(user=user),
        "protection": protection_public(protection) if protection is not None else None,
    }
