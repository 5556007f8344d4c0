"""Partners in the admin: created and changed through the partner services; keys, players, idempotent
requests and webhooks read-only, with the actions the services offer (revoke, disable, resend)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.template.response import TemplateResponse
from django.urls import reverse

from casino.admin_base import ActionsCheckedAdmin, ReadOnlyAdmin
from partners import services, webhooks
from partners.identifiers import PartnerRejected
from partners.models import (
    Partner,
    PartnerApiKey,
    PartnerIdempotencyKey,
    PartnerPlayer,
    WebhookDelivery,
    WebhookEndpoint,
)

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


@admin.register(Partner)
class PartnerAdmin(ActionsCheckedAdmin):
    """Partners are created and changed through the partner services (audited); never deleted."""

    list_display = ("code", "name", "is_active", "rate_limit", "created_at")
    list_filter = ("is_active",)
    search_fields = ("code", "name")
    actions = ["api_key_create"]

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> tuple[str, ...]:
        return ("code", "created_at") if obj is not None else ("created_at",)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_api_key_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("partners.add_partnerapikey")

    def save_model(self, request: HttpRequest, obj: Partner, form, change: bool) -> None:
        if change:
            changes = {field: form.cleaned_data[field] for field in form.changed_data}
            services.partner_update(partner=obj, changes=changes, actor=request.user)
            return
        created = services.partner_create(
            code=obj.code, name=obj.name, rate_limit=obj.rate_limit, is_active=obj.is_active, actor=request.user
        )
        obj.pk, obj.created_at = created.pk, created.created_at

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
