"""The partner's float (``GET /api/v1/float/``, its statement) and a table's rounds
(``GET /api/v1/tables/{code}/rounds/``)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from kernel.money import MONEY, ZERO
from partners.api.serializers import RoundSerializer, RoundsQuerySerializer
from partners.api.views import PAGE_PARAMETERS, PartnerView, errors
from partners.selectors.accounts import partner_float, partner_float_statement
from partners.selectors.rounds import table_round_record, table_rounds


class FloatSerializer(serializers.Serializer):
    partner = serializers.CharField()
    currency = serializers.CharField()
    balance = serializers.DecimalField(
        **MONEY, help_text="what we owe you (positive) or your players hold here or you owe us (negative)"
    )


class DatesQuerySerializer(RoundsQuerySerializer):
    table = None  # a statement is of the float, not of a table


class StatementEntrySerializer(serializers.Serializer):
    entry_id = serializers.IntegerField(source="pk")
    transaction_id = serializers.IntegerField(source="transaction.pk")
    kind = serializers.CharField(source="transaction.kind")
    amount = serializers.DecimalField(**MONEY, help_text="credited to the float (negative: debited)")
    balance_after = serializers.DecimalField(**MONEY)
    round_id = serializers.CharField(source="transaction.coup.round_id", allow_null=True, default=None)
    created_at = serializers.DateTimeField(source="transaction.created_at")


class TableRoundSerializer(RoundSerializer):
    bets = None  # public history: no bets


class FloatView(PartnerView):
    @extend_schema(
        operation_id="float",
        tags=["float"],
        summary="Your float account's balance",
        responses={200: FloatSerializer, **errors()},
    )
    def get(self, request: Request) -> Response:
        account = partner_float(partner=self.partner)
        balance = account.balance if account is not None else ZERO
        return Response(
            FloatSerializer({"partner": self.partner.code, "currency": self.partner.currency, "balance": balance}).data
        )


class FloatStatementView(PartnerView):
    query_parameters = {"GET": ("date_from", "date_to", *PAGE_PARAMETERS)}

    @extend_schema(
        operation_id="float_statement",
        tags=["float"],
        summary="Your float account's movements, newest first",
        parameters=[DatesQuerySerializer],
        responses={200: StatementEntrySerializer(many=True), **errors(400, 404)},
    )
    def get(self, request: Request) -> Response:
        filters = self.validated(DatesQuerySerializer, request.query_params.dict())
        entries = partner_float_statement(
            partner=self.partner, date_from=filters.get("date_from"), date_to=filters.get("date_to")
        )
        page = self.paginate_queryset(entries)
        return self.get_paginated_response(StatementEntrySerializer(page, many=True).data)


class TableRoundsView(PartnerView):
    query_parameters = {"GET": ("date_from", "date_to", *PAGE_PARAMETERS)}

    @extend_schema(
        operation_id="table_rounds_list",
        tags=["tables"],
        summary="A table's rounds, newest first: results and cards (no bets)",
        parameters=[DatesQuerySerializer],
        responses={200: TableRoundSerializer(many=True), **errors(400, 404)},
    )
    def get(self, request: Request, code: str) -> Response:
        table = self.table_or_404(code)
        filters = self.validated(DatesQuerySerializer, request.query_params.dict())
        coups = table_rounds(
            partner=self.partner, table=table, date_from=filters.get("date_from"), date_to=filters.get("date_to")
        )
        page = self.paginate_queryset(coups)
        records = [table_round_record(coup=coup) for coup in page]
        return self.get_paginated_response(TableRoundSerializer(records, many=True).data)
