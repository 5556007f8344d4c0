"""Money in the admin: read-only, except deposits and withdrawals, which go through the services."""

from __future__ import annotations

import uuid

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template import engines
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from kernel.admin_base import ReadOnlyAdmin
from kernel.money import AmountField
from wagering import chips_admin, protection_admin  # noqa: F401  (importing them registers their admins)
from wagering.errors import WageringError
from wagering.models import (
    CENT,
    Account,
    Bet,
    IdempotencyKey,
    LedgerEntry,
    LedgerTransaction,
    ShoeReport,
    TableDayReport,
)
from wagering.report_csv import csv_response
from wagering.reports import shoe_report_build, table_day_report_build
from wagering.wallets import MAX_IDEMPOTENCY_KEY, wallet_deposit, wallet_withdraw

MONEY_MOVE_PERMISSION = "wagering.move_money"
REPORT_FIELDS = (
    "coups",
    "void_coups",
    "banker_wins",
    "player_wins",
    "ties",
    "bets",
    "players",
    "staked",
    "returned",
    "house_win",
    "hold_percent",
    "computed_at",
)
MONEY_MOVE_TEMPLATE = engines["django"].from_string(
    """{% extends "admin/base_site.html" %}
{% block content %}
<p>Balance: <strong>{{ account.balance }}</strong></p>
<form method="post">{% csrf_token %}
{{ form.as_p }}
<input type="submit" class="default" value="Move money">
</form>
{% endblock %}"""
)


class MoneyMoveForm(forms.Form):
    operation = forms.ChoiceField(
        choices=[(LedgerTransaction.Kind.DEPOSIT, "Deposit"), (LedgerTransaction.Kind.WITHDRAWAL, "Withdraw")]
    )
    amount = AmountField(min_value=CENT)
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))
    # A new key with every form: submitting the same form twice moves the money once.
    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=MAX_IDEMPOTENCY_KEY)


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "user", "partner_code", "table", "shard", "currency", "balance", "created_at")
    list_filter = ("kind", "currency", "shard")
    search_fields = ("user__username", "partner_code")
    list_select_related = ("user", "table")
    readonly_fields = (
        "kind",
        "user",
        "partner_code",
        "table",
        "shard",
        "currency",
        "balance",
        "created_at",
        "money_move_link",
    )

    def get_urls(self):
        view = self.admin_site.admin_view(self.money_move_view)
        return [path("<int:account_id>/move-money/", view, name="wagering_account_move_money"), *super().get_urls()]

    @admin.display(description="Deposit or withdraw")
    def money_move_link(self, account: Account) -> str:
        if not account.is_wallet:
            return "-"
        return format_html(
            '<a href="{}">Deposit or withdraw</a>', reverse("admin:wagering_account_move_money", args=[account.pk])
        )

    def money_move_view(self, request: HttpRequest, account_id: int) -> HttpResponse:
        if not request.user.has_perm(MONEY_MOVE_PERMISSION):
            raise PermissionDenied
        account = get_object_or_404(Account, pk=account_id, kind=Account.Kind.PLAYER)
        form = MoneyMoveForm(request.POST or None, initial={"idempotency_key": uuid.uuid4().hex})
        if request.method == "POST" and form.is_valid():
            move = wallet_deposit if form.cleaned_data["operation"] == "deposit" else wallet_withdraw
            try:
                ledger_transaction = move(
                    user=account.user,
                    amount=form.cleaned_data["amount"],
                    idempotency_key=form.cleaned_data["idempotency_key"],
                    actor=request.user,
                    reason=form.cleaned_data["reason"],
                )
            except WageringError as error:
                form.add_error(None, error.message)
            else:
                self.message_user(
                    request,
                    f"Ledger transaction #{ledger_transaction.pk}: {ledger_transaction.get_kind_display()}",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(reverse("admin:wagering_account_change", args=[account.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Deposit or withdraw: {account}",
            "account": account,
            "form": form,
        }
        return TemplateResponse(request, MONEY_MOVE_TEMPLATE, context)


class LedgerEntryInline(admin.TabularInline):
    model = LedgerEntry
    fields = ("account", "amount", "balance_before", "balance_after")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "currency", "coup", "actor", "reason", "created_at")
    list_filter = ("kind",)
    search_fields = ("coup__round_id", "reason")
    list_select_related = ("coup", "actor")
    date_hierarchy = "created_at"
    inlines = [LedgerEntryInline]


@admin.register(Bet)
class BetAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "coup",
        "user",
        "bet_type",
        "stake",
        "currency",
        "state",
        "outcome",
        "returned",
        "created_at",
    )
    list_filter = ("state", "bet_type", "stake_account__currency")
    search_fields = ("coup__round_id", "user__username")
    list_select_related = ("coup", "user", "settlement", "stake_account")

    @admin.display(description="currency")
    def currency(self, bet: Bet) -> str:
        return bet.stake_account.currency

    @admin.display(description="outcome")
    def outcome(self, bet: Bet) -> str:
        return bet.settlement.outcome if hasattr(bet, "settlement") else "-"

    @admin.display(description="returned")
    def returned(self, bet: Bet) -> str:
        return str(bet.settlement.returned) if hasattr(bet, "settlement") else "-"


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(ReadOnlyAdmin):
    list_display = ("key", "operation", "request", "transaction", "created_at")
    search_fields = ("key",)


class ReportAdmin(ReadOnlyAdmin):
    actions = ["export_csv", "rebuild"]
    key_fields: tuple[str, ...] = ()

    @admin.action(description="Export selected reports as CSV", permissions=["view"])
    def export_csv(self, request: HttpRequest, queryset) -> HttpResponse:
        rows = ([*self.key_values(report), *(getattr(report, field) for field in REPORT_FIELDS)] for report in queryset)
        return csv_response(filename=self.opts.model_name, header=[*self.key_fields, *REPORT_FIELDS], rows=rows)

    def has_rebuild_permission(self, request: HttpRequest) -> bool:
        """Surveillance and the pit boss view and export reports; recomputing them is a change."""
        return request.user.has_perm(f"{self.opts.app_label}.change_{self.opts.model_name}")

    @admin.action(description="Recompute selected reports", permissions=["rebuild"])
    def rebuild(self, request: HttpRequest, queryset) -> None:
        for report in queryset:
            self.build(report)
        self.message_user(request, f"{queryset.count()} reports recomputed", messages.SUCCESS)

    def key_values(self, report) -> list:
        raise NotImplementedError

    def build(self, report) -> None:
        raise NotImplementedError


@admin.register(TableDayReport)
class TableDayReportAdmin(ReportAdmin):
    list_display = (
        "day",
        "table",
        "currency",
        "coups",
        "staked",
        "returned",
        "house_win",
        "hold_percent",
        "computed_at",
    )
    list_filter = ("table", "currency")
    list_select_related = ("table",)
    date_hierarchy = "day"
    key_fields = ("table", "day", "currency")

    def key_values(self, report: TableDayReport) -> list:
        return [report.table.code, report.day.isoformat(), report.currency]

    def build(self, report: TableDayReport) -> None:
        table_day_report_build(table_id=report.table_id, day=report.day)


@admin.register(ShoeReport)
class ShoeReportAdmin(ReportAdmin):
    list_display = ("shoe", "currency", "coups", "staked", "returned", "house_win", "hold_percent", "computed_at")
    list_filter = ("currency",)
    list_select_related = ("shoe__table",)
    key_fields = ("table", "shoe", "currency")

    def key_values(self, report: ShoeReport) -> list:
        return [report.shoe.table.code, report.shoe.number, report.currency]

    def build(self, report: ShoeReport) -> None:
        shoe_report_build(shoe_id=report.shoe_id)


# --- Partners: API keys, players, webhooks ---------------------------------------------------------
