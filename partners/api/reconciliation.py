"""``GET /api/v1/reconciliation/?date=YYYY-MM-DD``: a seamless wallet's day, its sums and each transaction."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from partners.api.views import PAGE_PARAMETERS, PartnerView, errors
from partners.reconciliation import reconciliation_summary, reconciliation_transactions


class ReconciliationQuerySerializer(serializers.Serializer):
    date = serializers.DateField(input_formats=["%Y-%m-%d"], help_text="a UTC day, YYYY-MM-DD")


class WalletTransactionSerializer(serializers.Serializer):
    transaction_id = serializers.UUIDField()
    kind = serializers.CharField(help_text="debit, credit or rollback")
    player_id = serializers.CharField(source="player.external_id")
    amount = serializers.DecimalField(max_digits=14, decimal_places=2)
    currency = serializers.CharField()
    round_id = serializers.CharField(source="body.round_id", allow_null=True, default=None)
    rolled_back_transaction_id = serializers.UUIDField(
        source="rolls_back.transaction_id", allow_null=True, default=None
    )
    state = serializers.CharField(help_text="pending, acknowledged, refused or failed (rolled back)")
    attempts = serializers.IntegerField()
    error_code = serializers.CharField(help_text="your wallet's refusal, if it refused")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class ReconciliationView(PartnerView):
    query_parameters = {"GET": ("date", *PAGE_PARAMETERS)}

    @extend_schema(
        operation_id="reconciliation",
        tags=["wallet"],
        summary="A day of your seamless wallet: sums and every transaction with its state",
        parameters=[OpenApiParameter("date", str, required=True, description="a UTC day, YYYY-MM-DD")],
        responses={200: WalletTransactionSerializer(many=True), **errors(400, 404)},
    )
    def get(self, request: Request) -> Response:
        day = self.validated(ReconciliationQuerySerializer, dict(request.query_params.items()))["date"]
        page = self.paginate_queryset(reconciliation_transactions(partner=self.partner, day=day))
        response = self.get_paginated_response(WalletTransactionSerializer(page, many=True).data)
        response.data = {**reconciliation_summary(partner=self.partner, day=day), **response.data}
        return response
