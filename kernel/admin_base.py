"""What every registered ModelAdmin shares: a changelist filters only through the admin's own filters.

Django lets any query-string lookup on a local field through (``?card_order__regex=^KC``), which makes
a changelist an oracle for fields no screen shows: it lists the row only when the guess is right.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin import widgets
from django.contrib.admin.filters import FieldListFilter, ListFilter
from django.contrib.admin.utils import get_fields_from_path
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

DATE_HIERARCHY_PARTS = ("year", "month", "day")


class StrictLookupsMixin:
    """A lookup passes only if one of ``list_filter`` or ``date_hierarchy`` sends it, or a raw-id popup's
    ``limit_choices_to`` does; anything else is ``DisallowedModelAdminLookup`` (400), never applied."""

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        allowed = lookup in self.filter_parameters(request) or (lookup, value) in self._popup_lookups()
        return allowed and super().lookup_allowed(lookup, value, request)

    def filter_parameters(self, request: HttpRequest | None) -> frozenset[str]:
        """The query-string parameters the admin's filters and date hierarchy read (computed once per admin:
        a related field's filter reads its choices from the database when it is built)."""
        list_filter = self.get_list_filter(request) if request is not None else self.list_filter
        key = (tuple(tuple(item) if isinstance(item, list) else item for item in list_filter), self.date_hierarchy)
        known = self.__dict__.setdefault("_filter_parameters", {})
        if key not in known:
            known[key] = self._parameters_of(list_filter, request)
        return known[key]

    def _parameters_of(self, list_filter, request: HttpRequest | None) -> frozenset[str]:
        names = {f"{self.date_hierarchy}__{part}" for part in DATE_HIERARCHY_PARTS} if self.date_hierarchy else set()
        for item in list_filter:
            if isinstance(item, type) and issubclass(item, ListFilter):
                names.update(item(request, {}, self.model, self).expected_parameters())
                continue
            path, filter_class = item if isinstance(item, (list, tuple)) else (item, FieldListFilter.create)
            field = get_fields_from_path(self.model, path)[-1]
            spec = filter_class(field, request, {}, self.model, self, field_path=path)
            names.update(spec.expected_parameters())
        return frozenset(names)

    def _popup_lookups(self) -> set[tuple[str, str]]:
        """What a raw-id popup choosing this model sends: the ``limit_choices_to`` of the keys to it."""
        lookups = set()
        for fk_lookup in self.model._meta.related_fkey_lookups:
            conditions = fk_lookup() if callable(fk_lookup) else fk_lookup
            lookups.update(widgets.url_params_from_lookup_dict(conditions).items())
        return lookups


class StrictModelAdmin(StrictLookupsMixin, admin.ModelAdmin):
    """The project's ModelAdmin base."""


class ActionsCheckedAdmin(StrictModelAdmin):
    """An action the user may not run is refused with 403 (Django would only say "No action selected")."""

    def changelist_view(self, request: HttpRequest, extra_context=None) -> HttpResponse:
        if request.method == "POST":
            allowed = self.get_actions(request)
            if any(name and name not in allowed for name in request.POST.getlist("action")):
                raise PermissionDenied
        return super().changelist_view(request, extra_context)


class ReadOnlyAdmin(ActionsCheckedAdmin):
    """Rows written only by the services: listed and shown, never added, changed or deleted here."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
