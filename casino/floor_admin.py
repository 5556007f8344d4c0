"""The pit-boss admin. It never changes the floor itself: every change is a call to tables.services,
which validates it and writes the audit row (actor and reason). Surveillance only views.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from axes import admin as axes_admin
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth import admin as auth_admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse

from casino import lifecycle
from casino.admin_base import ActionsCheckedAdmin, ReadOnlyAdmin, ReadOnlyInline, StrictLookupsMixin
from tables import corrections, holds
from tables.errors import TableError
from tables.forms import (
    RULES_TAKE_EFFECT,
    BetLimitForm,
    DealerLoginForm,
    KeepForNextCoupForm,
    LimitMarkerGrantForm,
    NoBetCoupsForm,
    ReasonForm,
    ResultCorrectionForm,
    TableCreateForm,
    TableRulesForm,
    VoidForm,
)
from tables.models import (
    AuditLog,
    BetLimit,
    Coup,
    DealerSession,
    DealtCard,
    HeldCard,
    PersonalLimitMarker,
    ResultCorrection,
    Shoe,
    Table,
)
from tables.selectors import table_dealer
from tables.services import (
    RULE_FIELDS,
    bet_limit_set,
    dealer_login,
    dealer_logout,
    limit_marker_grant,
    limit_marker_revoke,
    no_bet_coups_order,
    table_close,
    table_create,
    table_open,
    table_rules_update,
)

CONFIRMED = "confirmed"  # set by the confirmation page: the action runs with the posted form
REFUSALS = (TableError, ValidationError)


def _refusal_text(error: Exception) -> str:
    return "; ".join(error.messages) if isinstance(error, ValidationError) else str(error)


def confirmed_action(
    *, description: str, permission: str, form_class: type[forms.Form] = ReasonForm, one_at_a_time: bool = False
) -> Callable:
    """An admin action behind a confirmation page whose form (a reason, at least) must be valid.

    The decorated ``perform(modeladmin, request, obj, data)`` runs for each selected object
    in one transaction: if the service refuses any of them, nothing is changed.
    """

    def decorate(perform: Callable) -> Callable:
        @admin.action(description=description, permissions=[permission])
        @functools.wraps(perform)
        def action(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset) -> HttpResponse | None:
            if one_at_a_time and queryset.count() != 1:
                modeladmin.message_user(request, f"{description}: select exactly one.", messages.ERROR)
                return None
            form = form_class(request.POST if CONFIRMED in request.POST else None)
            if not form.is_valid():
                return _confirmation_page(
                    modeladmin, request, queryset, form, action_name=perform.__name__, title=description
                )
            try:
                with transaction.atomic():
                    for obj in queryset:
                        perform(modeladmin, request, obj, form.cleaned_data)
            except REFUSALS as error:
                modeladmin.message_user(request, f"Nothing was changed: {_refusal_text(error)}", messages.ERROR)
            else:
                modeladmin.message_user(request, f"Done: {description} ({len(queryset)}).", messages.SUCCESS)
            return None

        return action

    return decorate


def _confirmation_page(modeladmin, request, queryset, form, *, action_name: str, title: str) -> TemplateResponse:
    """Like Django's delete confirmation: the selected objects, the form, and the action posted again."""
    request.current_app = modeladmin.admin_site.name
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "opts": modeladmin.model._meta,
        "objects": queryset,
        "form": form,
        "action_name": action_name,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "confirmed_field": CONFIRMED,
        "media": modeladmin.media + form.media,
    }
    return TemplateResponse(request, "admin/tables/action_confirmation.html", context)


class FloorAdmin(ActionsCheckedAdmin):
    """Nothing on the floor is deleted; an action the user may not run is refused with 403;
    a service's refusal is shown as a message and changes nothing."""

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def changeform_view(self, request: HttpRequest, object_id=None, form_url="", extra_context=None) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except REFUSALS as error:  # raised inside the view's transaction: it is rolled back
            self.message_user(request, f"Nothing was changed: {_refusal_text(error)}", messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())


# --- Tables: rules, limits, opening, no-bet coups, cards, dealers ------------------------------


class BetLimitInline(admin.TabularInline):
    """Saved by TableAdmin.save_formset through bet_limit_set."""

    model = BetLimit
    form = BetLimitForm
    fields = ("bet_type", "minimum", "maximum", "table_maximum")
    readonly_fields = ("bet_type",)
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # every bet type gets its limit when the table is created

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return super().has_change_permission(request, obj) and request.user.has_perm("tables.operate_table")


class DealerSessionInline(ReadOnlyInline):
    model = DealerSession
    fields = ("dealer", "started_at", "ended_at")
    verbose_name_plural = "dealer rotation"

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("dealer")


@admin.register(Table)
class TableAdmin(FloorAdmin):
    list_display = ("code", "name", "dealing_mode", "is_open", "current_dealer", "no_bet_coups_ordered")
    list_filter = ("is_open", "dealing_mode")
    search_fields = ("code", "name")
    inlines = (BetLimitInline, DealerSessionInline)
    actions = (
        "open_tables",
        "close_tables",
        "order_no_bet_coups",
        "replace_cards",
        "log_dealer_in",
        "log_dealer_out",
    )
    rules_fields = tuple(field for field in RULE_FIELDS if field not in ("dealing_mode", "name"))

    @admin.display(description="dealer")
    def current_dealer(self, table: Table) -> str:
        session = table_dealer(table=table)
        return session.dealer.get_username() if session else "-"

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return super().has_change_permission(request, obj) and request.user.has_perm("tables.operate_table")

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
            return [(None, {"fields": ("code", "name", "dealing_mode", *self.rules_fields)})]
        fieldsets = [
            (None, {"fields": ("code", "name", "dealing_mode", "is_open", "current_dealer", "no_bet_coups_ordered")}),
            ("Rules and limits", {"fields": self.rules_fields, "description": RULES_TAKE_EFFECT}),
        ]
        if self.has_change_permission(request, obj):
            fieldsets.append(("Reason for the change", {"fields": ("reason",)}))
        return fieldsets

    def save_model(self, request: HttpRequest, obj: Table, form: forms.ModelForm, change: bool) -> None:
        data = form.cleaned_data
        if not change:
            table = table_create(actor=request.user, code=data["code"], **{field: data[field] for field in RULE_FIELDS})
            obj.pk = table.pk  # the admin goes on (history, redirect) with its own instance
            return
        changes = {field: data[field] for field in form.changed_data if field in RULE_FIELDS}
        if changes:
            table_rules_update(table=obj, actor=request.user, changes=changes, reason=data["reason"])

    def save_formset(self, request: HttpRequest, form: forms.ModelForm, formset, change: bool) -> None:
        """Only the limits are editable: each one changed goes through bet_limit_set."""
        formset.new_objects, formset.deleted_objects, formset.changed_objects = [], [], []
        if formset.model is not BetLimit:
            return
        for limit_form in formset.initial_forms:
            if limit_form.has_changed():
                limit = bet_limit_set(
                    table=form.instance,
                    actor=request.user,
                    bet_type=limit_form.instance.bet_type,
                    minimum=limit_form.cleaned_data["minimum"],
                    maximum=limit_form.cleaned_data["maximum"],
                    table_maximum=limit_form.cleaned_data["table_maximum"],
                    reason=form.cleaned_data["reason"],
                )
                formset.changed_objects.append((limit, limit_form.changed_data))

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


# --- Coups and shoes: read-only, but a coup can be held, decided and voided -----------------------


class DealtCardInline(ReadOnlyInline):
    model = DealtCard
    fields = ("position", "hand", "card", "shoe_position", "entered_by", "dealt_at")
    readonly_fields = fields


class ResultCorrectionInline(ReadOnlyInline):
    model = ResultCorrection
    fields = ("state", "player_cards", "banker_cards", "reason", "requested_by", "decided_by", "decided_at")
    readonly_fields = fields


class HeldCardInline(ReadOnlyInline):
    model = HeldCard
    fk_name = "coup"
    fields = ("card", "entered_for", "next_hand", "shoe_position", "entered_by", "outcome", "decided_by", "decided_at")
    readonly_fields = fields
    verbose_name_plural = "cards entered for the wrong hand"


@admin.register(Coup)
class CoupAdmin(ReadOnlyAdmin):
    list_display = (
        "round_id",
        "table",
        "shoe",
        "number",
        "state",
        "no_bet",
        "winner",
        "player_total",
        "banker_total",
        "held_reason",
        "opened_at",
    )
    list_filter = ("state", "no_bet", "table")
    list_select_related = ("table", "shoe")
    search_fields = ("round_id",)
    date_hierarchy = "opened_at"
    inlines = (DealtCardInline, HeldCardInline, ResultCorrectionInline)
    actions = (
        "hold_coups",
        "release_coups",
        "deal_held_card_in_this_coup",
        "keep_held_card_for_next_coup",
        "void_coups",
        "request_result_correction",
    )

    def has_void_coup_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.void_coup")

    def has_correct_result_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.correct_result")

    def has_resolve_dealing_error_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.resolve_dealing_error")

    @confirmed_action(description="Hold the selected coups for the pit", permission="resolve_dealing_error")
    def hold_coups(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        holds.coup_hold(coup=coup, actor=request.user, reason=data["reason"])

    @confirmed_action(description="Release the selected held coups", permission="resolve_dealing_error")
    def release_coups(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        holds.coup_release(coup=coup, actor=request.user, reason=data["reason"])

    @confirmed_action(
        description="Held card: deal it in proper order in this coup (§4.3)", permission="resolve_dealing_error"
    )
    def deal_held_card_in_this_coup(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        holds.held_card_deal_in_this_coup(coup=coup, actor=request.user, reason=data["reason"])

    @confirmed_action(
        description="Held card: keep it as the next coup's first card (§4.3)",
        permission="resolve_dealing_error",
        form_class=KeepForNextCoupForm,
    )
    def keep_held_card_for_next_coup(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        holds.held_card_keep_for_next_coup(coup=coup, actor=request.user, no_bet=data["no_bet"], reason=data["reason"])

    @confirmed_action(
        description="Void the selected coups and refund all their bets", permission="void_coup", form_class=VoidForm
    )
    def void_coups(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        lifecycle.coup_void(coup=coup, actor=request.user, reason=data["reason"], dealing_error=data["dealing_error"])

    @confirmed_action(
        description="Request a correction of the result (another staff member approves it)",
        permission="correct_result",
        form_class=ResultCorrectionForm,
        one_at_a_time=True,
    )
    def request_result_correction(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        corrections.result_correction_request(
            coup=coup,
            player_cards=data["player_cards"],
            banker_cards=data["banker_cards"],
            reason=data["reason"],
            actor=request.user,
        )


@admin.register(ResultCorrection)
class ResultCorrectionAdmin(ReadOnlyAdmin):
    """Requested from the coup's page; approved or rejected here by someone other than the requester."""

    list_display = (
        "__str__",
        "state",
        "result_before",
        "result_after",
        "requested_by",
        "requested_at",
        "decided_by",
        "decided_at",
    )
    list_filter = ("state", "coup__table")
    list_select_related = ("coup", "requested_by", "decided_by")
    search_fields = ("coup__round_id",)
    actions = ("approve_corrections", "reject_corrections")

    @admin.display(description="before")
    def result_before(self, correction: ResultCorrection) -> str:
        return _result_text(correction.before)

    @admin.display(description="after")
    def result_after(self, correction: ResultCorrection) -> str:
        return _result_text(correction.after)

    def has_correct_result_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.correct_result")

    @confirmed_action(
        description="Approve the selected corrections (re-settles their coups)", permission="correct_result"
    )
    def approve_corrections(self, request: HttpRequest, correction: ResultCorrection, data: dict) -> None:
        lifecycle.result_correction_approve(correction=correction, actor=request.user, reason=data["reason"])

    @confirmed_action(description="Reject the selected corrections", permission="correct_result")
    def reject_corrections(self, request: HttpRequest, correction: ResultCorrection, data: dict) -> None:
        corrections.result_correction_reject(correction=correction, actor=request.user, reason=data["reason"])


def _result_text(result: dict) -> str:
    player, banker = " ".join(result["player"]), " ".join(result["banker"])
    return f"{result['winner']} {result['player_total']}-{result['banker_total']} (P {player}, B {banker})"


@admin.register(Shoe)
class ShoeAdmin(ReadOnlyAdmin):
    """The card order (and the cards burned face down) stay hidden until the shoe is out of play."""

    SECRET_UNTIL_OUT_OF_PLAY = "hidden until the shoe is finished or discarded"
    list_display = ("__str__", "state", "shuffle_method", "seal_number", "position", "coups_started", "started_at")
    list_filter = ("state", "shuffle_method", "table")
    list_select_related = ("table",)
    fields = (
        "table",
        "number",
        "state",
        "decks",
        "shuffle_method",
        "seal_number",
        "cut_card_position",
        "burn_shown",
        "position",
        "coups_started",
        "last_coup",
        "prepared_by",
        "created_at",
        "started_at",
        "finished_at",
        "burned_cards_once_out_of_play",
        "card_order_once_out_of_play",
    )
    readonly_fields = fields

    @admin.display(description="burned cards")
    def burned_cards_once_out_of_play(self, shoe: Shoe) -> str:
        return " ".join(shoe.reveal().burned_cards) if shoe.revealed else self.SECRET_UNTIL_OUT_OF_PLAY

    @admin.display(description="card order")
    def card_order_once_out_of_play(self, shoe: Shoe) -> str:
        if not shoe.revealed:
            return self.SECRET_UNTIL_OUT_OF_PLAY
        return " ".join(shoe.reveal().card_order) or "physical shoe: not recorded"


# --- Personal limit markers, dealer sessions, the audit log ---------------------------------


@admin.register(PersonalLimitMarker)
class PersonalLimitMarkerAdmin(FloorAdmin):
    """Granted through the add form (limit_marker_grant), revoked by an action; never edited."""

    form = LimitMarkerGrantForm
    list_display = ("player", "table", "minimum", "maximum", "valid_from", "valid_until", "revoked_at", "granted_by")
    list_filter = ("table", ("revoked_at", admin.EmptyFieldListFilter))
    list_select_related = ("player", "table", "granted_by")
    actions = ("revoke_markers",)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.change_personallimitmarker")

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
