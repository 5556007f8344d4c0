"""Partners in the admin: created and changed through the partner services; keys, players, idempotent
requests and webhooks read-only, with the actions the services offer (revoke, disable, resend)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.template.response import TemplateResponse
from django.urls import reverse

from kernel.admin_base import ActionsCheckedAdmin, ReadOnlyAdmin, ReadOnlyInline
from partners import seamless, services, wallet_settings, webhooks
from partners.identifiers import PartnerRejected
from partners.models import (
    Partner,
    PartnerApiKey,
    PartnerIdempotencyKey,
    PartnerPlayer,
    ReconciliationReport,
    WalletCallAttempt,
    WalletTransaction,
    WebhookDelivery,
    WebhookEndpoint,
)
from partners.wallet_sending import STUCK_AFTER_ATTEMPTS

API_KEY_TEMPLATE = engines["django"].from_string(
    """{% extends "admin/base_site.html" %}
{% block content %}
<p>Store these keys now: only their hashes are kept, they cannot be shown again.</p>
<table>
<tr><th>Partner</th><th>Key</th></tr>
{% for issued in keys %}<tr><td>{{ issued.api_key.partner }}</td><td><code>{{ issued.key }}</code></td></tr>{% endfor %}
</table>
<p><a href="{{ back }}">Back to the partners</a></p>
{% endblock %}"""
)


WALLET_FIELDS = ("currency", "wallet_mode", "wallet_url", "new_wallet_secret")


class PartnerForm(forms.ModelForm):
    """The partner's fields; the wallet's secret is write-only (never shown, stored encrypted)."""

    new_wallet_secret = forms.CharField(
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="seamless: the secret signing our wallet calls (16 characters or more); empty keeps the current one",
    )

    class Meta:
        model = Partner
        fields = ("code", "name", "is_active", "rate_limit", "frame_origins", "currency", "wallet_mode", "wallet_url")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name in ("currency", "wallet_mode"):  # left out: as they are (a new partner's: the defaults)
            if name in self.fields:  # not on a read-only view
                self.fields[name].required = False

    def clean(self) -> dict:
        data = super().clean()
        for name in ("currency", "wallet_mode"):
            data[name] = data.get(name) or getattr(self.instance, name)
        has_secret = bool(self.instance.wallet_secret_encrypted) or bool(data.get("new_wallet_secret"))
        try:
            wallet_settings.wallet_settings_check(
                mode=data.get("wallet_mode", ""),
                wallet_url=data.get("wallet_url", ""),
                wallet_secret=data.get("new_wallet_secret") or None,
                currency=data.get("currency", ""),
                has_secret=has_secret,
            )
            if self.instance.pk is not None:
                wallet_settings.currency_change_check(partner=self.instance, currency=data.get("currency", ""))
        except PartnerRejected as error:
            raise forms.ValidationError(error.message) from None
        return data


@admin.register(Partner)
class PartnerAdmin(ActionsCheckedAdmin):
    """Partners are created and changed through the partner services (audited); never deleted."""

    form = PartnerForm
    list_display = ("code", "name", "is_active", "currency", "wallet_mode", "rate_limit", "created_at")
    list_filter = ("is_active", "wallet_mode")
    search_fields = ("code", "name")
    actions = ["api_key_create"]

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> tuple[str, ...]:
        return ("code", "created_at") if obj is not None else ("created_at",)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_api_key_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("partners.add_partnerapikey")

    def save_model(self, request: HttpRequest, obj: Partner, form, change: bool) -> None:
        data = form.cleaned_data
        if change:
            changes = {field: data[field] for field in form.changed_data if field in services.PARTNER_EDITABLE_FIELDS}
            if changes:
                services.partner_update(partner=obj, changes=changes, actor=request.user)
        else:
            created = services.partner_create(
                code=obj.code, name=obj.name, rate_limit=obj.rate_limit, is_active=obj.is_active, actor=request.user
            )
            if obj.frame_origins:
                services.partner_update(
                    partner=created, changes={"frame_origins": obj.frame_origins}, actor=request.user
                )
            obj.pk, obj.created_at = created.pk, created.created_at
        if not change or set(form.changed_data) & set(WALLET_FIELDS):
            wallet_settings.partner_wallet_set(
                partner=obj,
                mode=data["wallet_mode"],
                wallet_url=data["wallet_url"],
                wallet_secret=data.get("new_wallet_secret") or None,
                currency=data["currency"],
                actor=request.user,
            )

    @admin.action(description="Create an API key (shown once)", permissions=["api_key"])
    def api_key_create(self, request: HttpRequest, queryset) -> HttpResponse:
        keys = [
            services.partner_api_key_create(partner=partner, name="admin", actor=request.user) for partner in queryset
        ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "New API keys",
            "keys": keys,
            "back": reverse("admin:partners_partner_changelist"),
        }
        return TemplateResponse(request, API_KEY_TEMPLATE, context)


@admin.register(PartnerApiKey)
class PartnerApiKeyAdmin(ReadOnlyAdmin):
    list_display = ("prefix", "partner", "name", "created_at", "revoked_at")
    list_filter = ("partner",)
    search_fields = ("prefix", "partner__code", "name")
    list_select_related = ("partner",)
    fields = ("prefix", "partner", "name", "created_at", "revoked_at")  # never the secret's hash
    actions = ["revoke"]

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("partners.change_partnerapikey")

    @admin.action(description="Revoke the selected keys", permissions=["revoke"])
    def revoke(self, request: HttpRequest, queryset) -> None:
        for api_key in queryset.filter(revoked_at__isnull=True):
            services.partner_api_key_revoke(api_key=api_key, actor=request.user, reason="revoked in the admin")
        self.message_user(request, "The selected keys are revoked.", messages.SUCCESS)


@admin.register(PartnerPlayer)
class PartnerPlayerAdmin(ReadOnlyAdmin):
    list_display = ("external_id", "partner", "user", "created_at")
    list_filter = ("partner",)
    search_fields = ("external_id", "user__username")
    list_select_related = ("partner", "user")


@admin.register(PartnerIdempotencyKey)
class PartnerIdempotencyKeyAdmin(ReadOnlyAdmin):
    list_display = ("key", "partner", "request", "transaction", "created_at")
    list_filter = ("partner",)
    search_fields = ("key",)
    list_select_related = ("partner", "transaction")


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(ReadOnlyAdmin):
    list_display = ("id", "partner", "url", "is_active", "created_at", "disabled_at")
    list_filter = ("is_active", "partner")
    search_fields = ("url", "partner__code")
    list_select_related = ("partner",)
    fields = ("partner", "url", "is_active", "created_at", "disabled_at")  # never the secret
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    actions = ["disable"]

    def has_disable_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("partners.change_webhookendpoint")

    @admin.action(description="Disable the selected endpoints", permissions=["disable"])
    def disable(self, request: HttpRequest, queryset) -> None:
        for endpoint in queryset.filter(is_active=True):
            webhooks.webhook_endpoint_disable(endpoint=endpoint, actor=request.user)
        self.message_user(request, "The selected endpoints are disabled.", messages.SUCCESS)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = (
        "event_id",
        "event_type",
        "coup",
        "endpoint",
        "status",
        "attempts",
        "last_status_code",
        "last_attempt_at",
        "delivered_at",
    )
    list_filter = ("status", "event_type", "endpoint__partner")
    search_fields = ("event_id", "coup__round_id", "endpoint__url")
    list_select_related = ("coup", "endpoint__partner")
    date_hierarchy = "created_at"
    actions = ["resend"]

    def has_resend_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("partners.change_webhookdelivery")

    @admin.action(description="Send the selected failed deliveries again", permissions=["resend"])
    def resend(self, request: HttpRequest, queryset) -> None:
        for delivery in queryset:
            try:
                webhooks.webhook_delivery_resend(delivery=delivery, actor=request.user)
            except PartnerRejected as error:
                self.message_user(request, error.message, messages.WARNING)


class StuckFilter(admin.SimpleListFilter):
    title = "stuck"
    parameter_name = "stuck"

    def lookups(self, request: HttpRequest, model_admin) -> list[tuple[str, str]]:
        return [("yes", f"Pending after {STUCK_AFTER_ATTEMPTS} attempts or more")]

    def queryset(self, request: HttpRequest, queryset):
        if self.value() == "yes":
            return queryset.filter(state=WalletTransaction.State.PENDING, attempts__gte=STUCK_AFTER_ATTEMPTS)
        return queryset


class WalletCallAttemptInline(ReadOnlyInline):
    model = WalletCallAttempt
    fields = ("started_at", "duration_ms", "status_code", "outcome", "error")


@admin.register(WalletTransaction)
class WalletTransactionAdmin(ReadOnlyAdmin):
    """Seamless wallets' debits, credits and rollbacks with every attempt; pending ones can be sent now."""

    list_display = (
        "transaction_id",
        "kind",
        "amount",
        "currency",
        "player",
        "partner",
        "coup",
        "state",
        "attempts",
        "last_status_code",
        "next_attempt_at",
        "created_at",
    )
    list_filter = ("state", "kind", StuckFilter, "partner")
    search_fields = ("transaction_id", "player__external_id", "coup__round_id")
    list_select_related = ("partner", "player", "coup")
    date_hierarchy = "created_at"
    inlines = [WalletCallAttemptInline]
    actions = ["retry"]

    def has_retry_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("partners.change_wallettransaction")

    @admin.action(description="Send the selected pending transactions now", permissions=["retry"])
    def retry(self, request: HttpRequest, queryset) -> None:
        sent = seamless.wallet_transactions_retry(ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{sent} pending transactions sent again.", messages.SUCCESS)


@admin.register(ReconciliationReport)
class ReconciliationReportAdmin(ReadOnlyAdmin):
    list_display = ("partner", "day", "summary", "computed_at")
    list_filter = ("partner",)
    date_hierarchy = "day"
