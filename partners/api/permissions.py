"""Who may call the partner API: a partner whose key authenticated and who is active."""

from __future__ import annotations

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from partners.models import PartnerApiKey


class IsActivePartner(BasePermission):
    message = "this partner is disabled: ask us to enable it again"
    code = "partner_disabled"

    def has_permission(self, request: Request, view) -> bool:
        return isinstance(request.auth, PartnerApiKey) and request.auth.partner.is_active
