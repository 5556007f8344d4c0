"""``Authorization: Bearer <key>``: a partner's API key (see ``partners.identifiers`` for its shape)."""

from __future__ import annotations

from dataclasses import dataclass

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from kernel.errors import ErrorCode
from partners.models import Partner, PartnerApiKey
from partners.selectors.accounts import partner_api_key_find

KEYWORD = "Bearer"


@dataclass(frozen=True)
class PartnerCaller:
    """``request.user`` of the partner API: the partner, not a Django user."""

    partner: Partner
    is_authenticated = True
    is_anonymous = False

    def __str__(self) -> str:
        return f"partner {self.partner.code}"


class PartnerKeyAuthentication(BaseAuthentication):
    """A request without ``Authorization`` is anonymous (refused by the permission: 401)."""

    def authenticate(self, request: Request) -> tuple[PartnerCaller, PartnerApiKey] | None:
        words = get_authorization_header(request).split()
        if not words or words[0].lower() != KEYWORD.lower().encode():
            return None
        if len(words) != 2:
            raise AuthenticationFailed("the Authorization header is 'Bearer <API key>'", code=ErrorCode.INVALID_API_KEY)
        try:
            key = words[1].decode("ascii")
        except UnicodeDecodeError:
            raise AuthenticationFailed("an API key is ASCII", code=ErrorCode.INVALID_API_KEY) from None
        api_key = partner_api_key_find(key=key)
        if api_key is None:
            raise AuthenticationFailed("unknown or revoked API key", code=ErrorCode.INVALID_API_KEY)
        return PartnerCaller(partner=api_key.partner), api_key

    def authenticate_header(self, request: Request) -> str:
        return f'{KEYWORD} realm="api"'


class PartnerKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = PartnerKeyAuthentication
    name = "PartnerApiKey"

    def get_security_definition(self, auto_schema) -> dict:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A partner API key, `punto_<prefix>_<secret>`: `Authorization: Bearer <key>`.",
        }
