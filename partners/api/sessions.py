"""``POST /api/v1/sessions/``: a game launch, the URL that opens our table UI as the partner's player."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from partners.api.serializers import AmountField
from partners.api.views import BODY_ERRORS, PartnerView, errors
from partners.identifiers import PLAYER_ID_PATTERN
from partners.launch import launch_session_create
from wagering.protection.services import MAX_SESSION_MINUTES


class MinutesField(serializers.IntegerField):
    """Whole minutes, 1 to a day, as a JSON integer: a string, a fraction or a boolean is refused."""

    default_error_messages = {"not_minutes": f"a whole number of minutes, 1 to {MAX_SESSION_MINUTES}"}

    def __init__(self, **kwargs) -> None:
        super().__init__(min_value=1, max_value=MAX_SESSION_MINUTES, required=False, **kwargs)

    def to_internal_value(self, data: object) -> int:
        if type(data) is not int:
            self.fail("not_minutes")
        return super().to_internal_value(data)


class SessionCreateSerializer(serializers.Serializer):
    player_id = serializers.RegexField(PLAYER_ID_PATTERN, max_length=100)
    currency = serializers.CharField(max_length=3, help_text="the partner's currency (ISO 4217), e.g. EUR")
    nickname = serializers.CharField(max_length=40, required=False, allow_blank=True, trim_whitespace=False)
    language = serializers.CharField(max_length=10, required=False, allow_blank=True, help_text="e.g. en, en-GB")
    table = serializers.SlugField(max_length=20, required=False, allow_blank=True, help_text="open this table")
    return_url = serializers.CharField(
        max_length=500, required=False, allow_blank=True, help_text="where Exit leads (in the top window)"
    )
    reality_check_minutes = MinutesField(
        help_text="a reality check every so many minutes of the session (its duration, stakes, wins, net "
        "result; betting paused until the player answers); default: the player's choice, else the market's"
    )
    session_limit_minutes = MinutesField(
        help_text="the session ends after so many minutes: bets refused (session_limit), "
        "player.session_limit_reached sent (the shorter of this and the player's own limit applies)"
    )
    loss_limit = AmountField(
        required=False,
        help_text="the most the player may lose (net of wins) in this session, in your currency: a bet that "
        "could pass it is refused (loss_limit)",
    )


class LaunchSerializer(serializers.Serializer):
    launch_url = serializers.URLField(help_text="open it in a browser (a window or an iframe), once, before expires_at")
    expires_at = serializers.DateTimeField()


class SessionCreateView(PartnerView):
    @extend_schema(
        operation_id="session_create",
        tags=["launch"],
        summary="Launch a player into our table UI: a single-use URL, valid 60 s",
        request=SessionCreateSerializer,
        responses={201: LaunchSerializer, **errors(400, *BODY_ERRORS)},
    )
    def post(self, request: Request) -> Response:
        data = self.validated(SessionCreateSerializer, request.data)
        issued = launch_session_create(
            partner=self.partner,
            player_id=data["player_id"],
            currency=data["currency"],
            nickname=data.get("nickname", ""),
            language=data.get("language", ""),
            table_code=data.get("table", ""),
            return_url=data.get("return_url", ""),
            reality_check_minutes=data.get("reality_check_minutes"),
            session_limit_minutes=data.get("session_limit_minutes"),
            loss_limit=data.get("loss_limit"),
        )
        url = request.build_absolute_uri(f"/launch/{issued.token}/")
        return Response(
            {"launch_url": url, "expires_at": issued.expires_at.isoformat().replace("+00:00", "Z")},
            status=status.HTTP_201_CREATED,
        )
