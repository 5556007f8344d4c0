"""Pits in the admin: a floor manager (``tables.change_pit``; a superuser) sets one up, with its tables and its pit
bosses, through ``tables.pits``; pit bosses and surveillance see them read-only. Nothing is deleted: a pit no longer
used is left without tables."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from casino.admin.actions import FloorAdmin
from tables.forms import PitForm
from tables.models import Pit
from tables.pits import pit_create, pit_update


@admin.register(Pit)
class PitAdmin(FloorAdmin):
    form = PitForm
    list_display = ("code", "name", "table_codes", "boss_names")
    search_fields = ("code", "name")

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).prefetch_related("tables", "bosses")

    @admin.display(description="tables")
    def table_codes(self, pit: Pit) -> str:
        return ", ".join(table.code for table in pit.tables.all()) or "-"

    @admin.display(description="pit bosses")
    def boss_names(self, pit: Pit) -> str:
        return ", ".join(boss.get_username() for boss in pit.bosses.all()) or "-"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.change_pit")  # one permission sets pits up: the floor manager's

    def get_fields(self, request: HttpRequest, obj=None) -> tuple:
        if obj is not None and not self.has_change_permission(request, obj):
            return ("code", "name", "table_codes", "boss_names")
        return ("code", "name", "tables", "bosses", "reason")

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> tuple:
        return ("code", "table_codes", "boss_names") if obj is not None else ()

    def save_model(self, request: HttpRequest, obj: Pit, form: forms.ModelForm, change: bool) -> None:
        data = form.cleaned_data
        staffing = {"tables": data["tables"], "bosses": data["bosses"], "actor": request.user, "reason": data["reason"]}
        if change:
            pit_update(pit=obj, name=data["name"], **staffing)
        else:
            obj.pk = pit_create(code=data["code"], name=data["name"], **staffing).pk

    def save_related(self, request: HttpRequest, form: forms.ModelForm, formsets, change: bool) -> None:
        """The service has set the pit's bosses and tables (the form's own save would set them again, unaudited)."""
