"""The floor admins' base: nothing is deleted, a refused action changes nothing and says why, an action that
needs a reason asks for it on a confirmation page first, and a pit boss acts only on the tables in their care
(their pits' and those in no pit; a floor manager's: all): everyone may look at the whole floor."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse

from kernel.admin_base import ActionsCheckedAdmin
from kernel.errors import ErrorCode, PuntoError
from tables.errors import TableError
from tables.forms import (
    ReasonForm,
)
from tables.models import Table
from tables.selectors import table_supervised_by, tables_supervised_by

CONFIRMED = "confirmed"  # set by the confirmation page: the action runs with the posted form
REFUSALS = (PuntoError, ValidationError)


def _refusal_text(error: Exception) -> str:
    return "; ".join(error.messages) if isinstance(error, ValidationError) else str(error)


def confirmed_action(
    *, description: str, permission: str, form_class: type[forms.Form] = ReasonForm, one_at_a_time: bool = False
) -> Callable:
    """An admin action behind a confirmation page whose form (a reason, at least) must be valid.

    The decorated ``perform(modeladmin, request, obj, data)`` runs for each selected object
    in one transaction: if the service refuses any of them, nothing is changed; if any is at a table not in
    the user's care (``modeladmin.table_of(obj)``), none is acted on.
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
                _in_care_checked(request, {modeladmin.table_of(obj) for obj in queryset})
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


def table_in_care(request: HttpRequest, table: Table | None) -> bool:
    """No table yet (a list, an add form), or one in the user's care (``tables.selectors.table_supervised_by``)."""
    return table is None or table_supervised_by(table=table, user=request.user)


def _in_care_checked(request: HttpRequest, tables: set[Table]) -> None:
    """Before any is acted on: the selection's tables, each once."""
    for table in sorted(tables, key=lambda table: table.code):
        if not table_in_care(request, table):
            raise TableError(f"{table.code} is in a pit you do not supervise", code=ErrorCode.NOT_IN_PIT)


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

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs):
        """An add form offers only the tables in the user's care, and refuses any other posted."""
        if db_field.related_model is Table:
            kwargs["queryset"] = tables_supervised_by(user=request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def changeform_view(self, request: HttpRequest, object_id=None, form_url="", extra_context=None) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except REFUSALS as error:  # raised inside the view's transaction: it is rolled back
            self.message_user(request, f"Nothing was changed: {_refusal_text(error)}", messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())
