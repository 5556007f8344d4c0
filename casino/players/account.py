"""The player's account page (``/account/``): the nickname other players see (``tables.players``) and, for our own
players (not a partner's, whose operator protects them), responsible gaming: deposit, loss and session limits, the
reality check's interval, a time-out and a self-exclusion (``wagering.protection.services``). Each form posts
its ``form`` name; a change is said back once (Django's messages) and the page shows what is in force, and each
looser change waiting out its cooling-off with the time it applies."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.formats import number_format
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from casino.players.account_forms import (
    BREAK_CHOICES,
    LIMIT_GROUPS,
    LIMIT_LABELS,
    LIMIT_TITLES,
    BreakForm,
    LimitsForm,
    NicknameForm,
    RealityCheckForm,
    nickname_problem_said,
    protection_problem_said,
)
from kernel.security import LAUNCH_SESSION_KEY
from partners.selectors.accounts import player_currency
from tables.errors import TableError
from tables.models import PlayerProfile
from tables.selectors import player_display_name
from tables.services import player_nickname_set
from wagering.errors import ProtectionRefused
from wagering.models import PlayerProtection
from wagering.protection.services import (
    SELF_EXCLUSIONS,
    TIME_OUTS,
    protection_break_take,
    protection_limits_set,
    protection_reality_check_choose,
)
from wagering.protection.standing import Protection, player_protection, protection_read


@require_http_methods(["GET", "POST"])
@login_required
def account_page(request: HttpRequest) -> HttpResponse:
    if request.user.is_staff:
        raise PermissionDenied("staff accounts do not play")
    protected = not request.session.get(LAUNCH_SESSION_KEY)  # a partner's player: their operator protects them
    bound: dict[str, object] = {}
    if request.method == "POST":
        name = request.POST.get("form", "nickname")
        handler = _HANDLERS.get(name)
        if handler is None or (name != "nickname" and not protected):
            return HttpResponse(status=400 if handler is None else 403)
        done = handler(request, bound)
        if done:  # the change said at the top of the page (a form's address names its own section)
            return redirect(f"{reverse('account')}#account-messages")
    context = {"display_name": player_display_name(user=request.user), "protected": protected, **bound}
    if "form" not in context:
        profile = PlayerProfile.objects.filter(user=request.user).first()
        context["form"] = NicknameForm(initial={"nickname": profile.nickname if profile else ""})
    if protected:
        context.update(_protection_context(request, bound))
    refused = any(getattr(form, "errors", None) for form in bound.values())
    return render(request, "account.html", context, status=400 if refused else 200)


# --- The forms sent ------------------------------------------------------------------------------------------


def _nickname(request: HttpRequest, bound: dict) -> bool:
    form = bound["form"] = NicknameForm(request.POST)
    if not form.is_valid():
        return False
    try:
        player_nickname_set(user=request.user, nickname=form.cleaned_data["nickname"])
    except TableError as error:
        form.add_error("nickname", nickname_problem_said(str(error)))
        return False
    name = player_display_name(user=request.user)
    messages.success(request, gettext("Other players now see you as %(name)s.") % {"name": name})
    return True


def _limits(request: HttpRequest, bound: dict) -> bool:
    """Only the limits the player changed are sent: one left as it stands keeps its pending change."""
    group = request.POST["form"]
    form = bound[f"limits_{group}"] = LimitsForm(group, request.POST)
    if not form.is_valid():
        return False
    now = timezone.now()
    standing = _standing(request, at=now)
    changed = {
        name: value
        for name, value in form.cleaned_data.items()
        if value != standing.limit(name) and (name not in standing.pending or value != _pending_value(standing, name))
    }
    if not changed:
        messages.info(request, gettext("Nothing changed: these limits are in force already."))
        return True
    try:
        after = protection_limits_set(user=request.user, limits=changed)
    except ProtectionRefused as error:
        form.add_error(None, protection_problem_said(error))
        return False
    currency = player_currency(user=request.user)
    for name in changed:
        messages.success(request, _limit_change_said(after, name, currency))
    return True


def _reality_check(request: HttpRequest, bound: dict) -> bool:
    form = bound["reality_check_form"] = RealityCheckForm(request.POST)
    if not form.is_valid():
        return False
    minutes = form.cleaned_data["minutes"]
    protection_reality_check_choose(user=request.user, minutes=minutes)
    messages.success(request, gettext("A reality check will come every %(minutes)s minutes.") % {"minutes": minutes})
    return True


def _break(request: HttpRequest, bound: dict) -> bool:
    """Chosen, then confirmed: the first post shows what the break means; the second takes it."""
    form = bound["break_form"] = BreakForm(request.POST)
    if not form.is_valid():
        return False
    kind, duration = form.cleaned_data["kind"], form.cleaned_data["duration"]
    if not form.cleaned_data["confirmed"]:
        ends = timezone.now() + (TIME_OUTS if kind == "time_out" else SELF_EXCLUSIONS)[duration]
        bound["break_confirm"] = {
            "kind": kind,
            "duration": duration,
            "length": dict(BREAK_CHOICES[kind])[duration],
            "ends": _moment_said(ends),
        }
        return False
    after = protection_break_take(user=request.user, kind=kind, duration=duration)
    if kind == "time_out":
        text = gettext("Your time-out has started: no bets or deposits until %(time)s.")
        until = after.timed_out_until
    else:
        text = gettext("Your self-exclusion has started: no bets or deposits until %(time)s.")
        until = after.self_excluded_until
    messages.success(request, text % {"time": _moment_said(until)})
    return True


_HANDLERS = {
    "nickname": _nickname,
    **dict.fromkeys(LIMIT_GROUPS, _limits),
    "reality_check": _reality_check,
    "break": _break,
}


# --- What the page shows -------------------------------------------------------------------------------------


def _protection_context(request: HttpRequest, bound: dict) -> dict:
    now = timezone.now()
    standing = _standing(request, at=now)
    currency = player_currency(user=request.user)
    groups = []
    for group, names in LIMIT_GROUPS.items():
        initial = {name: standing.limit(name) for name in names}
        form = bound.get(f"limits_{group}") or LimitsForm(group, initial=initial)
        rows = [
            {
                "name": name,
                "field": form[name],
                "in_force": _value_said(name, standing.limit(name), currency),
                "pending": _pending_said(standing, name, currency),
            }
            for name in names
        ]
        groups.append({"group": group, "title": LIMIT_TITLES[group], "form": form, "rows": rows})
    chosen = standing.reality_check_minutes or settings.PLAYER_REALITY_CHECK_MINUTES or None
    timed_out = standing.timed_out_until if standing.timed_out_until and standing.timed_out_until > now else None
    excluded = (
        standing.self_excluded_until if standing.self_excluded_until and standing.self_excluded_until > now else None
    )
    return {
        "currency": currency,
        "limit_groups": groups,
        "reality_check_form": bound.get("reality_check_form") or RealityCheckForm(initial={"minutes": chosen}),
        "reality_check_minutes": chosen,
        "cooling_off_hours": settings.PLAYER_LIMIT_COOLING_OFF_HOURS,
        "time_out_choices": BREAK_CHOICES["time_out"],
        "self_exclusion_choices": BREAK_CHOICES["self_exclusion"],
        "timed_out_until": _moment_said(timed_out) if timed_out else "",
        "self_excluded_until": _moment_said(excluded) if excluded else "",
        "operator_excluded": standing.operator_excluded_at is not None,
    }


def _standing(request: HttpRequest, *, at: datetime) -> Protection:
    """The player's protection, or none at all for a player who never set any."""
    found = player_protection(user_id=request.user.pk, at=at)
    return found if found is not None else protection_read(PlayerProtection(user_id=request.user.pk), at=at)


def _pending_value(standing: Protection, name: str) -> Decimal | int | None:
    value = standing.pending[name]["value"]
    if value is None:
        return None
    return int(value) if name == "session_minutes" else Decimal(value)


def _pending_said(standing: Protection, name: str, currency: str) -> dict | None:
    if name not in standing.pending:
        return None
    effective_at = parse_datetime(standing.pending[name]["effective_at"])
    return {
        "value": _value_said(name, _pending_value(standing, name), currency),
        "at": _moment_said(effective_at),
        "at_iso": effective_at.isoformat(),
    }


def _value_said(name: str, value: Decimal | int | None, currency: str) -> str:
    if value is None:
        return gettext("No limit")
    if name == "session_minutes":
        return gettext("%(minutes)s minutes") % {"minutes": value}
    return f"{number_format(value, 2, force_grouping=True)} {currency}"


def _limit_change_said(after: Protection, name: str, currency: str) -> str:
    label = LIMIT_LABELS[name]
    pending = _pending_said(after, name, currency)
    if pending is None:
        value = _value_said(name, after.limit(name), currency)
        return gettext("%(limit)s: %(value)s, in force now.") % {"limit": label, "value": value}
    return gettext("%(limit)s: %(value)s from %(time)s, after the %(hours)s-hour cooling-off.") % {
        "limit": label,
        "value": pending["value"],
        "time": pending["at"],
        "hours": settings.PLAYER_LIMIT_COOLING_OFF_HOURS,
    }


def _moment_said(moment: datetime) -> str:
    """A moment as the player's limits count it: in ``PLAYER_PROTECTION_TIME_ZONE``, to the minute, named."""
    local = timezone.localtime(moment, ZoneInfo(settings.PLAYER_PROTECTION_TIME_ZONE))
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()}"
