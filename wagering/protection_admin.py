"""Players' protection in the admin, read-only: the limits in force and those pending (with when they apply),
the breaks and exclusions, the play session and the history (the audit rows: who changed what, when). Staff who
may change it (``wagering.change_playerprotection``: a superuser, or whoever is granted it, as a cashier is
granted ``move_money``) make limits stricter through ``protection_limits_set``, never looser; no screen sets or
lifts a break."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template import engines
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from kernel.admin_base import ReadOnlyAdmin
from kernel.money import AmountField
from tables.models import AuditLog
from wagering.errors import ProtectionRefused
from wagering.models import CENT, LIMIT_FIELDS, PlayerProtection
from wagering.protection.services import MAX_SESSION_MINUTES, protection_limits_set
from wagering.protection.standing import Protection, protection_read

PROTECTION_CHANGE_PERMISSION = "wagering.change_playerprotection"
HISTORY_ROWS = 200
LIMIT_LABELS = {
    "deposit_day": "Deposits a day",
    "deposit_week": "Deposits a week",
    "deposit_month": "Deposits a month",
    "loss_day": "Net loss a day",
    "loss_week": "Net loss a week",
    "loss_month": "Net loss a month",
    "session_minutes": "Session (minutes)",
}
STRICTER_TEMPLATE = engines["django"].from_string(
    """{% extends "admin/base_site.html" %}
{% block content %}
<p>A limit can only be made stricter here (lower, or set where there was none); the player's own looser
changes still wait out their cooling-off. Leave a field empty to keep the limit as it is.</p>
{{ limits }}
<form method="post">{% csrf_token %}
{{ form.as_p }}
<input type="submit" class="default" value="Make stricter">
</form>
{% endblock %}"""
)


class StricterLimitsForm(forms.Form):
    """The limits to set, each optional (empty: unchanged); the service decides what is stricter."""

    deposit_day = AmountField(min_value=CENT, required=False, label=LIMIT_LABELS["deposit_day"])
    deposit_week = AmountField(min_value=CENT, required=False, label=LIMIT_LABELS["deposit_week"])
    deposit_month = AmountField(min_value=CENT, required=False, label=LIMIT_LABELS["deposit_month"])
    loss_day = AmountField(min_value=CENT, required=False, label=LIMIT_LABELS["loss_day"])
    loss_week = AmountField(min_value=CENT, required=False, label=LIMIT_LABELS["loss_week"])
    loss_month = AmountField(min_value=CENT, required=False, label=LIMIT_LABELS["loss_month"])
    session_minutes = forms.IntegerField(
        min_value=1, max_value=MAX_SESSION_MINUTES, required=False, label=LIMIT_LABELS["session_minutes"]
    )

    def clean(self) -> dict:
        data = super().clean()
        if not self.errors and not self.limits():
            raise forms.ValidationError("Enter at least one limit.")
        return data

    def limits(self) -> dict[str, object]:
        return {name: value for name, value in self.cleaned_data.items() if value is not None}


@admin.register(PlayerProtection)
class PlayerProtectionAdmin(ReadOnlyAdmin):
    list_display = ("user", "limits_summary", "pending_summary", "break_summary", "session_ends_at", "updated_at")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    fields = ("user", "limits", "breaks", "session", "history", "stricter_link")
    readonly_fields = fields

    def get_urls(self):
        view = self.admin_site.admin_view(self.stricter_view)
        return [path("<int:user_id>/stricter/", view, name="wagering_playerprotection_stricter"), *super().get_urls()]

    def has_stricter_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(PROTECTION_CHANGE_PERMISSION)

    def stricter_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """A player's limits made stricter (any player's: the service makes their row if they have none)."""
        if not self.has_stricter_permission(request):
            raise PermissionDenied
        player = get_object_or_404(get_user_model(), pk=user_id, is_staff=False, is_superuser=False)
        form = StricterLimitsForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            try:
                protection_limits_set(user=player, limits=form.limits(), actor=request.user)
            except ProtectionRefused as refusal:
                form.add_error(None, f"Nothing was changed: {refusal.message}")
            else:
                self.message_user(request, f"Limits of {player.get_username()} made stricter", messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:wagering_playerprotection_change", args=[player.pk]))
        row = PlayerProtection.objects.filter(pk=player.pk).first()
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Make the limits of {player.get_username()} stricter",
            "limits": self.limits(row) if row is not None else "No limits yet.",
            "form": form,
        }
        return TemplateResponse(request, STRICTER_TEMPLATE, context)

    @admin.display(description="limits")
    def limits_summary(self, row: PlayerProtection) -> str:
        protection = _now(row)
        return "; ".join(f"{LIMIT_LABELS[name]} {value}" for name, value in _in_force(protection).items()) or "-"

    @admin.display(description="pending")
    def pending_summary(self, row: PlayerProtection) -> str:
        pending = _now(row).pending
        return "; ".join(f"{LIMIT_LABELS[n]} {c['value'] or 'none'} at {c['effective_at']}" for n, c in pending.items())

    @admin.display(description="break")
    def break_summary(self, row: PlayerProtection) -> str:
        return "; ".join(f"{what} {when}" for what, when, in_force in _breaks(_now(row)) if in_force) or "-"

    @admin.display(description="limits in force and pending")
    def limits(self, row: PlayerProtection) -> str:
        protection = _now(row)
        in_force, pending = _in_force(protection), protection.pending
        cells = (
            (
                LIMIT_LABELS[name],
                in_force.get(name, "none"),
                (pending[name]["value"] or "none") if name in pending else "-",
                pending[name]["effective_at"] if name in pending else "-",
            )
            for name in LIMIT_FIELDS
        )
        return _table(("limit", "in force", "pending change", "applies at"), cells)

    @admin.display(description="breaks and exclusions")
    def breaks(self, row: PlayerProtection) -> str:
        cells = ((what, when or "-", "in force" if in_force else "-") for what, when, in_force in _breaks(_now(row)))
        return _table(("break", "until / since", ""), cells)

    @admin.display(description="play session")
    def session(self, row: PlayerProtection) -> str:
        protection = _now(row)
        cells = (
            ("started", protection.session_started_at or "-"),
            ("ends (session limit)", protection.session_ends_at or "-"),
            ("loss limit of the session", protection.session_loss_limit or "-"),
            ("reality check every (minutes)", protection.reality_check_every or "-"),
            ("next reality check", protection.reality_check_due_at or "-"),
            ("the player's reality check choice (minutes)", protection.reality_check_minutes or "-"),
        )
        return _table(("", ""), cells)

    @admin.display(description=f"history (the last {HISTORY_ROWS} changes)")
    def history(self, row: PlayerProtection) -> str:
        entries = AuditLog.objects.filter(object_type=PlayerProtection.__name__, object_id=str(row.pk))
        cells = (
            (entry.created_at, entry.actor_label, entry.action, entry.before or "-", entry.after, entry.reason or "-")
            for entry in entries.order_by("-created_at", "-id")[:HISTORY_ROWS]
        )
        return _table(("when", "who", "what", "before", "after", "reason"), cells)

    @admin.display(description="")
    def stricter_link(self, row: PlayerProtection) -> str:
        url = reverse("admin:wagering_playerprotection_stricter", args=[row.pk])
        return format_html('<a href="{}">Make limits stricter</a>', url)

    def get_fields(self, request: HttpRequest, obj=None) -> tuple:
        return self.fields if self.has_stricter_permission(request) else self.fields[:-1]


def _now(row: PlayerProtection) -> Protection:
    return protection_read(row, at=timezone.now())


def _in_force(protection: Protection) -> dict[str, object]:
    limits = {f"deposit_{period}": value for period, value in protection.deposit.items()}
    limits.update({f"loss_{period}": value for period, value in protection.loss.items()})
    if protection.session_minutes:
        limits["session_minutes"] = protection.session_minutes
    return {name: limits[name] for name in LIMIT_FIELDS if name in limits}


def _breaks(protection: Protection) -> list[tuple[str, object, bool]]:
    """Each break as (what, until or since, in force now)."""
    at = protection.at
    return [
        (
            "self-excluded until",
            protection.self_excluded_until,
            bool(protection.self_excluded_until) and protection.self_excluded_until > at,
        ),
        (
            "timed out until",
            protection.timed_out_until,
            bool(protection.timed_out_until) and protection.timed_out_until > at,
        ),
        (
            "excluded by the operator since",
            protection.operator_excluded_at,
            protection.operator_excluded_at is not None,
        ),
    ]


def _table(header: tuple[str, ...], rows) -> str:
    head = format_html_join("", "<th>{}</th>", ((cell,) for cell in header))
    body = format_html_join(
        "", "<tr>{}</tr>", ((format_html_join("", "<td>{}</td>", ((cell,) for cell in row)),) for row in rows)
    )
    return format_html("<table><thead><tr>{}</tr></thead><tbody>{}</tbody></table>", head, body)
