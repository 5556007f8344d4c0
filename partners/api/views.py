"""The partner API's views: validate with a serializer, call a selector or a service, render.

Authentication, permission, throttling, pagination and errors come from ``REST_FRAMEWORK``
(``partners.api.authentication``, ``permissions``, ``throttling``, ``pagination``, ``exceptions``).
A partner reaches only its own players: another partner's player id answers 404.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kernel.errors import ErrorCode
from partners import services as partner_services
from partners import webhooks
from partners.api import serializers
from partners.bets import partner_bet_batch_place
from partners.identifiers import IDEMPOTENCY_KEY_PATTERN, PLAYER_ID_PATTERN
from partners.models import Partner, PartnerPlayer
from partners.selectors.accounts import (
    bet_batch_record,
    partner_player_find,
    partner_player_record,
    partner_webhook_endpoints,
    placed_batch_record,
    transfer_record,
)
from partners.selectors.rounds import (
    partner_player_bets,
    partner_player_rounds,
    player_round_records,
    round_find,
    round_record,
)
from partners.selectors.tables import (
    shoe_fairness,
    table_detail,
    table_find,
    table_overview,
    table_shoe_find,
    tables_on_offer,
)
from tables.models import Coup, Table
from tables.selectors import table_with_live_coup

ERRORS = {
    400: "bad input, or the request was refused (the code says why: a limit, the funds...)",
    401: "no API key, or an unknown or revoked one",
    403: "the partner is disabled",
    404: "no such thing (or not yours)",
    409: "refused by the state of things: betting closed, an idempotency key used for another request",
    413: "the body is over 64 kB (body_too_large)",
    415: "the body is not JSON (unsupported_media_type)",
    429: "over the partner's rate limit: see Retry-After",
    503: "a seamless wallet or the database did not answer: nothing was done, try again",
}
BODY_ERRORS = (413, 415)  # of every operation with a request body
REPLAYED_HEADER = "Idempotent-Replayed"
PAGE_PARAMETERS = ("page", "page_size")
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=True,
    pattern=IDEMPOTENCY_KEY_PATTERN,
    description="Your unique id for the request (e.g. a UUID): sent again with the same body it is carried "
    "out once and answers the first result; with another body it answers 409.",
)
REPLAYED = OpenApiParameter(
    REPLAYED_HEADER,
    str,
    OpenApiParameter.HEADER,
    enum=["true"],
    description="present when the answer is the replay of an earlier request with the same Idempotency-Key",
    response=[201],
)
PLAYER_ID = OpenApiParameter(
    "player_id", str, OpenApiParameter.PATH, pattern=PLAYER_ID_PATTERN, description="your id for the player"
)


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """The error responses of an operation: ``codes`` and those of every authenticated call."""
    return {
        code: OpenApiResponse(serializers.ErrorSerializer, description=ERRORS[code])
        for code in sorted({*codes, 401, 403, 429})
    }


class PartnerView(GenericAPIView):
    metadata_class = None  # OPTIONS is not part of the API: 405, and Allow does not list it

    @property
    def allowed_methods(self) -> list[str]:
        return [method for method in super().allowed_methods if method != "OPTIONS"]

    query_parameters: dict[str, tuple[str, ...]] = {}  # by method; any other is refused (a typo is no filter)

    def initial(self, request: Request, *args, **kwargs) -> None:
        super().initial(request, *args, **kwargs)
        if not hasattr(self, request.method.lower()):
            return  # 405 rather than a complaint about its parameters
        unknown = sorted(set(request.query_params) - set(self.query_parameters.get(request.method, ())))
        if unknown:
            raise ValidationError({name: ["unknown query parameter"] for name in unknown})

    @property
    def partner(self) -> Partner:
        return self.request.auth.partner

    def player_or_404(self, player_id: str) -> PartnerPlayer:
        player = partner_player_find(partner=self.partner, external_id=player_id)
        if player is None:
            raise NotFound(f"no player {player_id!r}", code=ErrorCode.PLAYER_NOT_FOUND)
        return player

    def table_or_404(self, code: str) -> Table:
        table = table_find(code=code)
        if table is None:
            raise NotFound(f"no table {code!r}", code=ErrorCode.TABLE_NOT_FOUND)
        return table

    def table_and_live_or_404(self, code: str) -> tuple[Table, Coup | None]:
        """The table and its live coup, only the columns a bet reads (``tables.selectors.table_with_live_coup``)."""
        table, live = table_with_live_coup(code=code)
        if table is None:
            raise NotFound(f"no table {code!r}", code=ErrorCode.TABLE_NOT_FOUND)
        return table, live

    def validated(self, serializer_class: type, data: object) -> dict:
        """The data, validated (query parameters as a plain dict: an empty value is a value, not an absence)."""
        serializer = serializer_class(data=data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data


def replayed_headers(result: partner_services.PartnerRequestResult) -> dict[str, str]:
    return {REPLAYED_HEADER: "true"} if result.replayed else {}


# --- Tables --------------------------------------------------------------------------------------


class TableListView(PartnerView):
    query_parameters = {"GET": PAGE_PARAMETERS}

    @extend_schema(
        operation_id="tables_list",
        tags=["tables"],
        responses={200: serializers.TableSerializer(many=True), **errors(400, 404)},
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(tables_on_offer())
        tables = [table_overview(table=table, currency=self.partner.currency) for table in page]
        return self.get_paginated_response(serializers.TableSerializer(tables, many=True).data)


class TableDetailView(PartnerView):
    @extend_schema(
        operation_id="table_get", tags=["tables"], responses={200: serializers.TableDetailSerializer, **errors(404)}
    )
    def get(self, request: Request, code: str) -> Response:
        detail = table_detail(table=self.table_or_404(code), currency=self.partner.currency)
        return Response(serializers.TableDetailSerializer(detail).data)


class ShoeView(PartnerView):
    @extend_schema(
        operation_id="shoe_get",
        tags=["tables"],
        summary="A shoe's commitment; once it is out of play, its order, salt and their verification",
        responses={200: serializers.ShoeSerializer, **errors(404)},
    )
    def get(self, request: Request, code: str, number: int) -> Response:
        shoe = table_shoe_find(partner=self.partner, table=self.table_or_404(code), number=number)
        if shoe is None:
            raise NotFound(f"no shoe {number} at table {code!r}", code=ErrorCode.SHOE_NOT_FOUND)
        return Response(serializers.ShoeSerializer(shoe_fairness(shoe=shoe)).data)


# --- Players and their money ---------------------------------------------------------------------


class PlayerCreateView(PartnerView):
    @extend_schema(
        operation_id="player_create",
        tags=["players"],
        summary="Create a player by your id (or get it, if it exists)",
        request=serializers.PlayerCreateSerializer,
        responses={
            201: serializers.PlayerSerializer,
            200: OpenApiResponse(serializers.PlayerSerializer, description="the player already existed"),
            **errors(400, 409, *BODY_ERRORS),
        },
    )
    def post(self, request: Request) -> Response:
        data = self.validated(serializers.PlayerCreateSerializer, request.data)
        player, created = partner_services.partner_player_create(partner=self.partner, external_id=data["player_id"])
        return Response(
            serializers.PlayerSerializer(partner_player_record(player=player)).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class PlayerDetailView(PartnerView):
    @extend_schema(
        operation_id="player_get",
        tags=["players"],
        parameters=[PLAYER_ID],
        responses={200: serializers.PlayerSerializer, **errors(404)},
    )
    def get(self, request: Request, player_id: str) -> Response:
        player = self.player_or_404(player_id)
        return Response(serializers.PlayerSerializer(partner_player_record(player=player)).data)


class TransferView(PartnerView):
    """A deposit to, or a withdrawal from, the player's wallet, against the partner's float."""

    transfer = None  # the partner service, by subclass

    def post(self, request: Request, player_id: str) -> Response:
        player = self.player_or_404(player_id)
        data = self.validated(serializers.TransferSerializer, request.data)
        result = self.transfer(
            partner=self.partner,
            player=player,
            amount=data["amount"],
            idempotency_key=request.headers.get("Idempotency-Key"),
        )
        record = transfer_record(ledger_transaction=result.transaction, player=player)
        return Response(
            serializers.TransferResultSerializer(record).data,
            status=status.HTTP_201_CREATED,
            headers=replayed_headers(result),
        )


def transfer_schema(operation_id: str, summary: str) -> dict:
    return {
        "post": extend_schema(
            operation_id=operation_id,
            tags=["players"],
            summary=summary,
            request=serializers.TransferSerializer,
            parameters=[PLAYER_ID, IDEMPOTENCY_KEY, REPLAYED],
            responses={201: serializers.TransferResultSerializer, **errors(400, 404, 409, *BODY_ERRORS)},
        )
    }


@extend_schema_view(**transfer_schema("deposit_create", "Deposit from your float to the player's wallet"))
class DepositView(TransferView):
    transfer = staticmethod(partner_services.partner_wallet_deposit)


@extend_schema_view(**transfer_schema("withdrawal_create", "Withdraw from the player's wallet to your float"))
class WithdrawalView(TransferView):
    transfer = staticmethod(partner_services.partner_wallet_withdraw)


# --- Bets, rounds and history --------------------------------------------------------------------


class PlayerBetsView(PartnerView):
    query_parameters = {"GET": ("table", "round_id", *PAGE_PARAMETERS)}

    @extend_schema(
        operation_id="bets_list",
        tags=["bets"],
        summary="The player's bets, newest round first",
        parameters=[PLAYER_ID, serializers.BetsQuerySerializer],
        responses={200: serializers.BetSerializer(many=True), **errors(400, 404)},
    )
    def get(self, request: Request, player_id: str) -> Response:
        player = self.player_or_404(player_id)
        filters = self.validated(serializers.BetsQuerySerializer, request.query_params.dict())
        bets = partner_player_bets(player=player, table_code=filters.get("table"), round_id=filters.get("round_id"))
        page = self.paginate_queryset(bets)
        return self.get_paginated_response(serializers.BetSerializer(page, many=True).data)

    @extend_schema(
        operation_id="bets_place",
        tags=["bets"],
        summary="Place a batch of bets on the coup taking bets at a table: all accepted, or none",
        request=serializers.BetBatchSerializer,
        parameters=[PLAYER_ID, IDEMPOTENCY_KEY, REPLAYED],
        responses={201: serializers.BetBatchResultSerializer, **errors(400, 404, 409, 503, *BODY_ERRORS)},
    )
    def post(self, request: Request, player_id: str) -> Response:
        player = self.player_or_404(player_id)
        data = self.validated(serializers.BetBatchSerializer, request.data)
        table, live = self.table_and_live_or_404(data["table"])
        result = partner_bet_batch_place(
            partner=self.partner,
            player=player,
            table=table,
            live=live,
            bets=data["bets"],
            round_id=data["round_id"],
            idempotency_key=request.headers.get("Idempotency-Key"),
        )
        if result.placed is not None:
            record = placed_batch_record(placed=result.placed, player=player)
        else:
            record = bet_batch_record(ledger_transaction=result.transaction, player=player)
        return Response(
            serializers.BetBatchResultSerializer(record).data,
            status=status.HTTP_201_CREATED,
            headers=replayed_headers(result),
        )


class PlayerRoundsView(PartnerView):
    query_parameters = {"GET": ("table", "date_from", "date_to", *PAGE_PARAMETERS)}

    @extend_schema(
        operation_id="player_rounds_list",
        tags=["rounds"],
        summary="The player's game history: the rounds bet on, newest first",
        parameters=[PLAYER_ID, serializers.RoundsQuerySerializer],
        responses={200: serializers.PlayerRoundSerializer(many=True), **errors(400, 404)},
    )
    def get(self, request: Request, player_id: str) -> Response:
        player = self.player_or_404(player_id)
        filters = self.validated(serializers.RoundsQuerySerializer, request.query_params.dict())
        coups = partner_player_rounds(
            player=player,
            table_code=filters.get("table"),
            date_from=filters.get("date_from"),
            date_to=filters.get("date_to"),
        )
        page = self.paginate_queryset(coups)
        records = player_round_records(player=player, coups=page)
        return self.get_paginated_response(serializers.PlayerRoundSerializer(records, many=True).data)


class RoundView(PartnerView):
    @extend_schema(
        operation_id="round_get",
        tags=["rounds"],
        summary="A round: its cards, totals and winner, with your players' bets and their settlement",
        responses={200: serializers.RoundSerializer, **errors(404)},
    )
    def get(self, request: Request, round_id: str) -> Response:
        coup = round_find(partner=self.partner, round_id=round_id)
        if coup is None:
            raise NotFound(f"no round {round_id!r}", code=ErrorCode.ROUND_NOT_FOUND)
        return Response(serializers.RoundSerializer(round_record(partner=self.partner, coup=coup)).data)


# --- Webhooks ------------------------------------------------------------------------------------


class WebhookListView(PartnerView):
    query_parameters = {"GET": PAGE_PARAMETERS}

    @extend_schema(
        operation_id="webhooks_list",
        tags=["webhooks"],
        responses={200: serializers.WebhookEndpointSerializer(many=True), **errors(400, 404)},
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(partner_webhook_endpoints(partner=self.partner))
        return self.get_paginated_response(serializers.WebhookEndpointSerializer(page, many=True).data)

    @extend_schema(
        operation_id="webhook_create",
        tags=["webhooks"],
        summary="Register a URL for your events: the answer holds its signing secret, shown this once",
        request=serializers.WebhookCreateSerializer,
        responses={201: serializers.WebhookEndpointCreatedSerializer, **errors(400, *BODY_ERRORS)},
    )
    def post(self, request: Request) -> Response:
        data = self.validated(serializers.WebhookCreateSerializer, request.data)
        created = webhooks.webhook_endpoint_create(partner=self.partner, url=data["url"], events=data.get("events"))
        answer = {**serializers.WebhookEndpointSerializer(created.endpoint).data, "secret": created.secret}
        return Response(answer, status=status.HTTP_201_CREATED)


class WebhookDetailView(PartnerView):
    @extend_schema(operation_id="webhook_delete", tags=["webhooks"], responses={204: None, **errors(404)})
    def delete(self, request: Request, webhook_id: int) -> Response:
        endpoint = partner_webhook_endpoints(partner=self.partner).filter(pk=webhook_id).first()
        if endpoint is None:
            raise NotFound(f"no webhook endpoint {webhook_id}", code=ErrorCode.WEBHOOK_NOT_FOUND)
        webhooks.webhook_endpoint_disable(endpoint=endpoint)
        return Response(status=status.HTTP_204_NO_CONTENT)


class NotFoundView(APIView):
    """Any other path under the API: a JSON 404, like the rest."""

    authentication_classes = ()
    permission_classes = ()
    throttle_classes = ()
    schema = None  # not part of the API's description

    def initial(self, request: Request, *args, **kwargs) -> None:
        super().initial(request, *args, **kwargs)
        raise NotFound(f"no API endpoint {request.path}")
