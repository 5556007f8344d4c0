"""A table dealt on demand (seed 004) in the partner API: ``/api/v1/tables/{code}/deal/``.

``GET ?player_id=`` answers the player's private shoe at the table, made and committed if they have none: its
commitment is published before its first deal, as the player's page shows it. ``POST`` deals: ``{"player_id",
"bets"}`` (or ``"rebet": true``) and the shoe's ``commitment``, with an ``Idempotency-Key``; one private coup
placed, dealt and settled at once (``casino.lifecycle.rng``), answered whole (201).

Here, not in ``partners.api``: the deal is the tables' lifecycle's (``casino``), which the partners package,
below it, may not import; the views are the partner API's own all the same (``PartnerView``: its key, partner,
rate limit, errors and schema), wired into ``/api/v1/`` by ``casino.urls``. The path names the table, as the
player's page does (``/tables/{code}/deal/``); the player is the body's, and another partner's answers 404.

Once per partner and key, as every money-moving request of the API (``partner_request_once``): the key is
claimed in the deal's transaction and recorded with the coup's placement; the coup's answer is the deal's own
record (``rng_coup_deal``'s, under a request id derived from the key), so a replay answers it again while that
record is kept (``BET_REQUEST_RETENTION_HOURS``), and refuses once it is not, never dealing twice. A refusal
leaves neither. A seamless wallet's player deals as on their page (one debit, then one credit, zero for a
round lost), which commits its debit before the wallet is called: so the key is claimed and committed first
(``partner_request_once_claimed``, as a seamless bet's), and recorded in the deal's transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from casino.lifecycle.rng import RngDealAsked, partner_deal_request_id, rng_coup_deal, rng_shoe_public, rng_shoe_ready
from casino.partner_api import serializers
from kernel.errors import ErrorCode
from partners.api.views import BODY_ERRORS, IDEMPOTENCY_KEY, REPLAYED, PartnerView, errors, replayed_headers
from partners.models import Partner, PartnerPlayer
from partners.services import (
    PartnerRequestResult,
    idempotency_key_check,
    partner_request_once,
    partner_request_once_claimed,
    player_of_partner_check,
)
from tables.models import Table
from wagering.errors import IdempotencyConflict
from wagering.models import BetBatch, BetRequest, LedgerTransaction


def partner_shoe_ready(*, partner: Partner, player: PartnerPlayer, table: Table) -> dict:
    """The player's private shoe in play at the table (made and committed if they have none), as published."""
    player_of_partner_check(partner=partner, player=player)
    return rng_shoe_public(shoe=rng_shoe_ready(table=table, player=player.user))


def partner_coup_deal(
    *,
    partner: Partner,
    player: PartnerPlayer,
    table: Table,
    bets: Mapping[str, Decimal] | None,
    commitment: str,
    idempotency_key: str,
) -> tuple[dict, PartnerRequestResult]:
    """Deal one private coup for the player (``bets``; ``None``: their last bets again), once per partner and
    key: the coup's answer, and the request's result (a replay or not)."""
    player_of_partner_check(partner=partner, player=player)
    idempotency_key_check(idempotency_key)
    stakes = None if bets is None else {bet_type: str(stake) for bet_type, stake in sorted(bets.items())}
    request = {
        "operation": "deal",
        "player_id": player.external_id,
        "table": table.code,
        "bets": stakes,
        "commitment": commitment,
    }
    asked = RngDealAsked(
        user=player.user,
        table=table,
        bets=stakes,
        commitment=commitment,
        request_id=partner_deal_request_id(partner_id=partner.pk, idempotency_key=idempotency_key),
        seamless=player if partner.is_seamless else None,
    )
    dealt: list[dict] = []

    def deal(asked: RngDealAsked) -> LedgerTransaction:
        dealt.append(rng_coup_deal(asked=asked))
        return BetBatch.objects.get(coup__round_id=dealt[0]["round_id"], user=player.user).placement

    if partner.is_seamless:

        def deal_recorded(recorded: Callable[[LedgerTransaction], None]) -> LedgerTransaction:
            return deal(replace(asked, placed_record=lambda placed: recorded(placed.batch.placement)))

        result = partner_request_once_claimed(
            partner=partner, key=idempotency_key, request=request, perform=deal_recorded
        )
    else:
        result = partner_request_once(
            partner=partner, key=idempotency_key, request=request, perform=lambda: deal(asked)
        )
    answer = dealt[0] if dealt else _deal_replayed(asked, result)
    answer = {name: value for name, value in answer.items() if name != "replayed"}  # Idempotent-Replayed says it
    return {"table": table.code, "player_id": player.external_id, **answer}, result


def _deal_replayed(asked: RngDealAsked, result: PartnerRequestResult) -> dict:
    """The deal's answer again, from its own record, which is kept ``BET_REQUEST_RETENTION_HOURS``: locked
    while it answers (the prune waits), as without it the deal would be dealt again. Once forgotten: 409."""
    with transaction.atomic():
        if not BetRequest.objects.select_for_update().filter(user=asked.user, key=asked.request_id).exists():
            round_id = result.transaction.placed_batch.coup.round_id
            raise IdempotencyConflict(
                f"this Idempotency-Key dealt round {round_id} over {settings.BET_REQUEST_RETENTION_HOURS} hours ago: "
                f"its answer is no longer kept (GET /api/v1/rounds/{round_id}/ shows the round)",
                code=ErrorCode.IDEMPOTENCY_CONFLICT,
                details={"round_id": round_id},
            )
        return rng_coup_deal(asked=asked)


class TableDealView(PartnerView):
    query_parameters = {"GET": ("player_id",)}

    @extend_schema(
        operation_id="deal_shoe_get",
        tags=["tables"],
        summary="A table dealt on demand: the player's shoe in play (made, and its commitment published, if "
        "they have none), before they deal from it",
        parameters=[serializers.DealShoeQuerySerializer],
        responses={200: serializers.DealShoeSerializer, **errors(400, 404)},
    )
    def get(self, request: Request, code: str) -> Response:
        query = self.validated(serializers.DealShoeQuerySerializer, request.query_params.dict())
        player, table = self.player_or_404(query["player_id"]), self.table_or_404(code)
        shoe = partner_shoe_ready(partner=self.partner, player=player, table=table)
        answer = {"table": table.code, "player_id": player.external_id, "shoe": shoe}
        return Response(serializers.DealShoeSerializer(answer).data)

    @extend_schema(
        operation_id="deal_create",
        tags=["bets"],
        summary="A table dealt on demand: the player's bets (or their last ones again) on a coup of their own, "
        "dealt and paid at once",
        request=serializers.DealSerializer,
        parameters=[IDEMPOTENCY_KEY, REPLAYED],
        responses={201: serializers.DealResultSerializer, **errors(400, 404, 409, 503, *BODY_ERRORS)},
    )
    def post(self, request: Request, code: str) -> Response:
        data = self.validated(serializers.DealSerializer, request.data)
        player, table = self.player_or_404(data["player_id"]), self.table_or_404(code)
        answer, result = partner_coup_deal(
            partner=self.partner,
            player=player,
            table=table,
            bets=None if data["rebet"] else data["bets"],
            commitment=data["commitment"],
            idempotency_key=request.headers.get("Idempotency-Key"),
        )
        return Response(
            serializers.DealResultSerializer(answer).data,
            status=status.HTTP_201_CREATED,
            headers=replayed_headers(result),
        )
