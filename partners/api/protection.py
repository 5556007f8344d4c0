"""``/api/v1/players/<player_id>/exclusion/``: the operator's own self-exclusion register. ``POST`` excludes
the player from play at once (every bet refused ``self_excluded``, on every open socket too; deposits
refused; withdrawals stay open), until ``DELETE`` lifts it; ``GET`` says whether it is in force. Each is
idempotent; a player's own time-out or self-exclusion is theirs and stays."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from partners.api.serializers import JsonBodySerializer
from partners.api.views import BODY_ERRORS, PLAYER_ID, PartnerView, errors
from partners.identifiers import partner_actor_label
from partners.models import PartnerPlayer
from wagering.protection.services import protection_operator_exclude, protection_operator_exclusion_lift
from wagering.protection.standing import player_protection

MAX_REASON = 500


class ExclusionChangeSerializer(JsonBodySerializer):
    reason = serializers.CharField(
        max_length=MAX_REASON, required=False, allow_blank=True, help_text="why, for the audit log"
    )


class ExclusionSerializer(serializers.Serializer):
    player_id = serializers.CharField()
    excluded = serializers.BooleanField(help_text="excluded by you: no bet, no deposit until you lift it")
    excluded_at = serializers.DateTimeField(allow_null=True, help_text="since when")


class ExclusionView(PartnerView):
    @extend_schema(
        operation_id="player_exclusion_get",
        tags=["players"],
        summary="Whether you excluded the player from play",
        parameters=[PLAYER_ID],
        responses={200: ExclusionSerializer, **errors(404)},
    )
    def get(self, request: Request, player_id: str) -> Response:
        return self._state(self.player_or_404(player_id))

    @extend_schema(
        operation_id="player_exclusion_set",
        tags=["players"],
        summary="Exclude the player from play at once (your self-exclusion register), until you lift it",
        request=ExclusionChangeSerializer,
        parameters=[PLAYER_ID],
        responses={200: ExclusionSerializer, **errors(400, 404, *BODY_ERRORS)},
    )
    def post(self, request: Request, player_id: str) -> Response:
        player = self.player_or_404(player_id)
        data = self.validated(ExclusionChangeSerializer, request.data)
        protection_operator_exclude(
            user=player.user, actor_label=partner_actor_label(self.partner.code), reason=data.get("reason", "")
        )
        return self._state(player)

    @extend_schema(
        operation_id="player_exclusion_lift",
        tags=["players"],
        summary="Lift your exclusion of the player (their own time-out or self-exclusion stays)",
        request=ExclusionChangeSerializer,
        parameters=[PLAYER_ID],
        responses={200: ExclusionSerializer, **errors(400, 404, *BODY_ERRORS)},
    )
    def delete(self, request: Request, player_id: str) -> Response:
        player = self.player_or_404(player_id)
        data = self.validated(ExclusionChangeSerializer, request.data)
        protection_operator_exclusion_lift(
            user=player.user, actor_label=partner_actor_label(self.partner.code), reason=data.get("reason", "")
        )
        return self._state(player)

    def _state(self, player: PartnerPlayer) -> Response:
        protection = player_protection(user_id=player.user_id, at=timezone.now())
        since = protection.operator_excluded_at if protection is not None else None
        state = {"player_id": player.external_id, "excluded": since is not None, "excluded_at": since}
        return Response(ExclusionSerializer(state).data)
