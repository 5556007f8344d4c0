"""A player's sign-in (the sign-in form, or a partner's launch, which signs them in) starts their play session:
its reality checks and session limit count from here (``wagering.protection.services.play_session_start``).
Staff do not play."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest

from wagering.protection.services import play_session_start


def play_session_on_sign_in(sender: object, request: HttpRequest, user: AbstractBaseUser, **kwargs: object) -> None:
    if not user.is_staff:
        play_session_start(user=user)
