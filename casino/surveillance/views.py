"""The surveillance pages (read-only): the shoes in play with their alerts, and a shoe's coup-by-coup history."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from casino.surveillance.selectors import RAISE_FACTOR, floor_outlook, recent_shoes, shoe_surveillance
from tables.models import Shoe

# The surveillance role's (and a pit boss's) read permissions; a dealer has neither.
SURVEILLANCE_PERMISSIONS = ("tables.view_shoe", "wagering.view_bet")


def surveillance_required(view: Callable) -> Callable:
    """Staff who may see shoes and bets; anyone else is sent to the admin login (anonymous) or refused."""

    @wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), login_url=reverse("admin:login"))
        if not (request.user.is_staff and request.user.has_perms(SURVEILLANCE_PERMISSIONS)):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return guarded


@require_GET
@surveillance_required
def floor(request: HttpRequest) -> HttpResponse:
    return render(request, "surveillance/floor.html", {"in_play": floor_outlook(), "recent": recent_shoes()})


@require_GET
@surveillance_required
def shoe_history(request: HttpRequest, shoe_id: int) -> HttpResponse:
    shoe = get_object_or_404(Shoe.objects.select_related("table"), pk=shoe_id)
    return render(
        request,
        "surveillance/shoe.html",
        {"surveillance": shoe_surveillance(shoe=shoe), "raise_factor": RAISE_FACTOR},
    )
