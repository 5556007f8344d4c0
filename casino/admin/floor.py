"""The floor in the admin: tables (rules, limits, opening, no-bet coups, cards, dealers), personal limit
markers, dealer sessions, the audit log, and Django's and django-axes' admins with strict lookups."""

from __future__ import annotations

from axes import admin as axes_admin
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django import forms
from django.contrib import admin
from django.contrib.auth import admin as auth_admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from casino import lifecycle
from casino.admin.actions import FloorAdmin, confirmed_action, table_in_care
from kernel.admin_base import ReadOnlyAdmin, ReadOnlyInline, StrictLookupsMixin
from tables.forms import (
    RULES_TAKE_EFFECT,
    BetLimitForm,
    DealerLoginForm,
    LimitMarkerGrantForm,
    LimitSetForm,
    NoBetCoupsForm,
    NoBetCoupsReduceForm,
    TableCreateForm,
    TableRulesForm,
)
from tables.limit_sets import bet_limit_set, limit_set_create, limit_set_update
from tables.models import (
    AuditLog,
    BetLimit,
    DealerSession,
    LimitSet,
    PersonalLimitMarker,
    Table,
)
from tables.selectors import table_dealer
from tables.services import (
    RULE_FIELDS,
    dealer_login,
    dealer_logout,
    limit_marker_grant,
    limit_marker_revoke,
    no_bet_coups_cancel,
    no_bet_coups_order,
    no_bet_coups_reduce,
    table_close,
    table_create,
    table_open,
    table_rules_update,
)

# --- Tables: rules, limits, opening, no-bet coups, cards, dealers ------------------------------


class LimitSetInline(ReadOnlyInline):
    """The table's currencies and their differential; each set's limits are edited on its own page."""

    model = LimitSet
    fields = ("currency", "max_differential", "limits_link")
    readonly_fields = fields
    verbose_name_plural = "limits per currency (a table takes bets only in these)"

    @admin.display(description="limits")
    def limits_link(self, limit_set: LimitSet) -> str:
        url = reverse("admin:tables_limitset_change", args=[limit_set.pk])
        return format_html('<a href="{}">Edit the {} limits</a>', url, limit_set.currency)


class BetLimitInline(admin.TabularInline):
    """Saved by LimitSetAdmin.save_formset through bet_limit_set."""

    model = BetLimit
    form = BetLimitForm
    fields = ("bet_type", "minimum", "maximum", "table_maximum")
    readonly_fields = ("bet_type",)
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # every bet type gets its limit when the limit set is created

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        """``obj``: the limit set."""
        allowed = super().has_change_permission(request, obj) and request.user.has_perm("tables.operate_table")
        return allowed and table_in_care(request, obj.table if obj is not None else None)


class DealerSessionInline(ReadOnlyInline):
    model = DealerSession
    fields = ("dealer", "started_at", "ended_at")
    verbose_name_plural = "dealer rotation"

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("dealer")


@admin.register(Table)
class TableAdmin(FloorAdmin):
    list_display = ("code", "name", "pit", "dealing_mode", "is_open", "current_dealer", "no_bet_coups_ordered")
    list_filter = ("pit", "is_open", "dealing_mode")
    search_fields = ("code", "name")
    inlines = (LimitSetInline, DealerSessionInline)
    actions = (
        "open_tables",
        "close_tables",
        "order_no_bet_coups",
        "reduce_no_bet_coups",
        "cancel_no_bet_coups",
        "replace_cards",
        "log_dealer_in",
        "log_dealer_out",
    )
    rules_fields = tuple(field for field in RULE_FIELDS if field not in ("dealing_mode", "name", "video_url"))

    @admin.display(description="dealer")
    def current_dealer(self, table: Table) -> str:
        session = table_dealer(table=table)
        return session.dealer.get_username() if session else "-"

    def table_of(self, table: Table) -> Table:
        return table

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        allowed = super().has_change_permission(request, obj) and request.user.has_perm("tables.operate_table")
        return allowed and table_in_care(request, obj)

    def has_operate_table_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.operate_table")

    def has_order_no_bet_coups_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.order_no_bet_coups")

    def has_replace_cards_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.replace_cards")

    def has_rotate_dealers_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.add_dealersession")

    def get_inline_instances(self, request: HttpRequest, obj=None) -> list:
        return super().get_inline_instances(request, obj) if obj is not None else []

    def get_form(self, request: HttpRequest, obj=None, change=False, **kwargs):
        kwargs["form"] = TableRulesForm if obj is not None else TableCreateForm
        return super().get_form(request, obj, change, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> tuple:
        return ("code", "is_open", "current_dealer", "no_bet_coups_ordered") if obj is not None else ()

    def get_fieldsets(self, request: HttpRequest, obj=None) -> list:
        if obj is None:
            return [(None, {"fields": ("code", "name", "dealing_mode", *self.rules_fields, "video_url")})]
        fieldsets = [
            (None, {"fields": ("code", "name", "dealing_mode", "is_open", "current_dealer", "no_bet_coups_ordered")}),
            ("Rules and limits", {"fields": self.rules_fields, "description": RULES_TAKE_EFFECT}),
            ("Live video", {"fields": ("video_url",), "description": "Dealer tables: players' pages switch at once."}),
        ]
        if self.has_change_permission(request, obj):
            fieldsets.append(("Reason for the change", {"fields": ("reason",)}))
        return fieldsets

    def save_formset(self, request: HttpRequest, form: forms.ModelForm, formset, change: bool) -> None:
        """The inlines are read-only: nothing to save (the limits are edited on each limit set's page)."""
        formset.new_objects, formset.deleted_objects, formset.changed_objects = [], [], []

    def save_model(self, request: HttpRequest, obj: Table, form: forms.ModelForm, change: bool) -> None:
        data = form.cleaned_data
        if not change:
            table = table_create(actor=request.user, code=data["code"], **{field: data[field] for field in RULE_FIELDS})
            obj.pk = table.pk  # the admin goes on (history, redirect) with its own instance
            return
        changes = {field: data[field] for field in form.changed_data if field in RULE_FIELDS}
        if changes:
            table_rules_update(table=obj, actor=request.user, changes=changes, reason=data["reason"])

    @confirmed_action(description="Open the selected tables", permission="operate_table")
    def open_tables(self, request: HttpRequest, table: Table, data: dict) -> None:
        table_open(table=table, actor=request.user, reason=data["reason"])

    @confirmed_action(description="Close the selected tables", permission="operate_table")
    def close_tables(self, request: HttpRequest, table: Table, data: dict) -> None:
        table_close(table=table, actor=request.user, reason=data["reason"])

    @confirmed_action(
        description="Order no-bet coups (the next coups take no bets)",
        permission="order_no_bet_coups",
        form_class=NoBetCoupsForm,
    )
    def order_no_bet_coups(self, request: HttpRequest, table: Table, data: dict) -> None:
        no_bet_coups_order(table=table, actor=request.user, count=data["count"], reason=data["reason"])

    @confirmed_action(
        description="Reduce the no-bet coups still to play (the reason says why)",
        permission="order_no_bet_coups",
        form_class=NoBetCoupsReduceForm,
    )
    def reduce_no_bet_coups(self, request: HttpRequest, table: Table, data: dict) -> None:
        no_bet_coups_reduce(table=table, actor=request.user, count=data["count"], reason=data["reason"])

    @confirmed_action(description="Cancel the no-bet coups still to play", permission="order_no_bet_coups")
    def cancel_no_bet_coups(self, request: HttpRequest, table: Table, data: dict) -> None:
        no_bet_coups_cancel(table=table, actor=request.user, reason=data["reason"])

    @confirmed_action(
        description="Replace the cards (void a coup in progress, discard the shoe, prepare a new one)",
        permission="replace_cards",
    )
    def replace_cards(self, request: HttpRequest, table: Table, data: dict) -> None:
        lifecycle.shoe_replace(table=table, actor=request.user, reason=data["reason"])

    @confirmed_action(
        description="Log a dealer in at the selected table",
        permission="rotate_dealers",
        form_class=DealerLoginForm,
        one_at_a_time=True,
    )
    def log_dealer_in(self, request: HttpRequest, table: Table, data: dict) -> None:
        dealer_login(table=table, dealer=data["dealer"], actor=request.user)

    @confirmed_action(
        description="Log the dealer out of the selected tables", permission="rotate_dealers", form_class=forms.Form
    )
    def log_dealer_out(self, request: HttpRequest, table: Table, data: dict) -> None:
        dealer_logout(table=table, actor=request.user)


# --- Personal limit markers, dealer sessions, the audit log ---------------------------------


@admin.register(LimitSet)
class LimitSetAdmin(FloorAdmin):
    """A table's limits in one currency: added with the default limits (``limit_set_create``), then its
    differential and every bet type's limits changed, each through its service with the reason."""

    list_display = ("table", "currency", "max_differential")
    list_filter = ("currency",)
    list_select_related = ("table",)
    search_fields = ("table__code",)
    inlines = (BetLimitInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and request.user.has_perm("tables.operate_table")

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        allowed = super().has_change_permission(request, obj) and request.user.has_perm("tables.operate_table")
        return allowed and table_in_care(request, obj.table if obj is not None else None)

    def get_inline_instances(self, request: HttpRequest, obj=None) -> list:
        return super().get_inline_instances(request, obj) if obj is not None else []  # limits: once it exists

    def get_form(self, request: HttpRequest, obj=None, change=False, **kwargs):
        kwargs["form"] = LimitSetForm
        return super().get_form(request, obj, change, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> tuple:
        return ("table", "currency") if obj is not None else ()

    def get_fields(self, request: HttpRequest, obj=None) -> tuple:
        return ("table", "currency", "max_differential", "reason")

    def save_model(self, request: HttpRequest, obj: LimitSet, form: forms.ModelForm, change: bool) -> None:
        data = form.cleaned_data
        if not change:
            created = limit_set_create(
                table=data["table"],
                actor=request.user,
                currency=data["currency"],
                max_differential=data["max_differential"],
                reason=data["reason"],
            )
            obj.pk = created.pk  # the admin goes on (history, redirect) with its own instance
        elif "max_differential" in form.changed_data:
            limit_set_update(
                table=obj.table,
                actor=request.user,
                currency=obj.currency,
                max_differential=data["max_differential"],
                reason=data["reason"],
            )

    def save_formset(self, request: HttpRequest, form: forms.ModelForm, formset, change: bool) -> None:
        """Only the limits are editable: each one changed goes through bet_limit_set."""
        formset.new_objects, formset.deleted_objects, formset.changed_objects = [], [], []
        for limit_form in formset.initial_forms:
            if limit_form.has_changed():
                limit = bet_limit_set(
                    table=form.instance.table,
                    actor=request.user,
                    currency=form.instance.currency,
                    bet_type=limit_form.instance.bet_type,
                    minimum=limit_form.cleaned_data["minimum"],
                    maximum=limit_form.cleaned_data["maximum"],
                    table_maximum=limit_form.cleaned_data["table_maximum"],
                    reason=form.cleaned_data["reason"],
                )
                formset.changed_objects.append((limit, limit_form.changed_data))


@admin.register(PersonalLimitMarker)
class PersonalLimitMarkerAdmin(FloorAdmin):
    """Granted through the add form (limit_marker_grant), revoked by an action; never edited."""

    form = LimitMarkerGrantForm
    list_display = (
        "player",
        "table",
        "currency",
        "bet_types",
        "minimum",
        "maximum",
        "valid_from",
        "valid_until",
        "revoked_at",
        "granted_by",
    )
    list_filter = ("table", "currency", ("revoked_at", admin.EmptyFieldListFilter))
    list_select_related = ("player", "table", "granted_by")
    actions = ("revoke_markers",)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.change_personallimitmarker")

    def table_of(self, marker: PersonalLimitMarker) -> Table:
        return marker.table

    def save_model(self, request: HttpRequest, obj: PersonalLimitMarker, form: forms.ModelForm, change: bool) -> None:
        marker = limit_marker_grant(actor=request.user, **form.cleaned_data)
        obj.pk = marker.pk  # the admin goes on (history, redirect) with its own instance

    @confirmed_action(description="Revoke the selected limit markers", permission="revoke")
    def revoke_markers(self, request: HttpRequest, marker: PersonalLimitMarker, data: dict) -> None:
        limit_marker_revoke(marker=marker, actor=request.user, reason=data["reason"])


@admin.register(DealerSession)
class DealerSessionAdmin(ReadOnlyAdmin):
    list_display = ("dealer", "table", "started_at", "ended_at")
    list_filter = ("table",)
    list_select_related = ("dealer", "table")


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdmin):
    """Append-only: nobody, not even a superuser, adds, changes or deletes an entry here."""

    list_display = ("created_at", "actor_label", "action", "table", "object_type", "object_id", "reason")
    list_filter = ("action", "table")
    list_select_related = ("table",)
    search_fields = ("actor_label", "action", "object_id", "reason")
    date_hierarchy = "created_at"


# --- Django's and django-axes' admins, with strict changelist lookups like every admin here ---------------


class UserAdmin(StrictLookupsMixin, auth_admin.UserAdmin):
    pass


class GroupAdmin(StrictLookupsMixin, auth_admin.GroupAdmin):
    pass


class AccessAttemptAdmin(StrictLookupsMixin, axes_admin.AccessAttemptAdmin):
    """A superuser unlocks a sign-in by deleting its attempt. Without axes' clean-up action: it needs
    request attributes axes' middleware no longer sets (a 500), and expired attempts are cleaned up
    at every sign-in anyway."""

    actions = ()


class AccessLogAdmin(StrictLookupsMixin, axes_admin.AccessLogAdmin):
    pass


class AccessFailureLogAdmin(StrictLookupsMixin, axes_admin.AccessFailureLogAdmin):
    pass


for model, model_admin in (
    (get_user_model(), UserAdmin),
    (Group, GroupAdmin),
    (AccessAttempt, AccessAttemptAdmin),
    (AccessLog, AccessLogAdmin),
    (AccessFailureLog, AccessFailureLogAdmin),
):
    admin.site.unregister(model)
    admin.site.register(model, model_admin)
