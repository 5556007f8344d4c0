"""Changes to a player's protection, each one transaction, audited (``tables.audit``), told to the player's
open pages on commit (the ``protection`` event: ``protection_public``).

- Limits: a stricter one applies at once; a looser one (higher, or removed) by the player waits out the
  cooling-off (``PLAYER_LIMIT_COOLING_OFF_HOURS``); staff may only make limits stricter.
- Breaks: a time-out or a self-exclusion runs to its end; taking one again can only lengthen it. The
  operator's exclusion (a partner's register) lasts until the operator lifts it.
- Sessions: a sign-in or a partner's launch starts one, with its reality checks and its limits."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from kernel.errors import ErrorCode
from kernel.live import user_event_send, user_events_send
from tables.audit import audit_record
from wagering.amounts import amount_checked
from wagering.errors import ProtectionRefused
from wagering.models import LIMIT_FIELDS, Bet, PlayerProtection, money
from wagering.protection.standing import Protection, bet_returned, players_protection, protection_read

User = AbstractBaseUser
PROTECTION_EVENT = "protection"
REALITY_CHECK_CHOICES = (15, 30, 60)
REALITY_CHECK_ANSWERS = ("continue", "leave", "history")
TIME_OUTS = {"24h": timedelta(hours=24), "7d": timedelta(days=7), "6w": timedelta(weeks=6)}
SELF_EXCLUSIONS = {"6m": timedelta(days=183), "1y": timedelta(days=365), "5y": timedelta(days=5 * 365 + 1)}
MAX_SESSION_MINUTES = 24 * 60
# A session without a limit is over, for the next sign-in, this long after it started.
SESSION_LONGEST = timedelta(hours=12)


def protection_limits_set(
    *, user: User, limits: Mapping[str, object], actor: User | None = None, actor_label: str = ""
) -> Protection:
    """Set some of the player's limits (``LIMIT_FIELDS`` -> an amount, minutes, or None for none). By the
    player (``actor`` None or themselves): stricter at once, looser after the cooling-off. By staff (or an
    operator, ``actor_label``): stricter only (``ProtectionRefused``, ``stricter_only``)."""
    by_player = (actor is None and not actor_label) or (actor is not None and actor.pk == user.pk)
    wanted = {name: _limit_checked(name, value) for name, value in limits.items()}
    now = timezone.now()
    with transaction.atomic():
        row = _row_locked(user)
        in_force = protection_read(row, at=now)
        before, after = {}, {}
        for name, value in wanted.items():
            current = in_force.limit(name)
            if _stricter_or_same(value, current):
                row.pending.pop(name, None)
                setattr(row, name, value)
                if name == "session_minutes" and value and _running(row, now=now):  # the running session too
                    row.session_ends_at = _earliest(
                        row.session_ends_at, row.session_started_at + timedelta(minutes=value)
                    )
            elif not by_player:
                raise ProtectionRefused(
                    f"staff and operators may only make a limit stricter: {name} is {current}, not {value}",
                    code=ErrorCode.STRICTER_ONLY,
                    details={"limit": name, "in_force": str(current), "asked": str(value)},
                )
            else:
                effective_at = now + timedelta(hours=settings.PLAYER_LIMIT_COOLING_OFF_HOURS)
                row.pending[name] = {
                    "value": None if value is None else str(value),
                    "effective_at": effective_at.isoformat(),
                }
                setattr(row, name, current)  # a due pending change applied (it was read in force)
            before[name], after[name] = _said(current), _said(value)
        row.save()
        _changed(row, action="protection_limits_set", before=before, after=after, actor=actor, label=actor_label)
        return protection_read(row, at=now)


def protection_reality_check_choose(*, user: User, minutes: int) -> Protection:
    """The player's reality check interval (15, 30 or 60 minutes), from their next check on; a running session
    (whose interval may be its operator's) only comes to check more often, a longer one waits for the next."""
    if type(minutes) is not int or minutes not in REALITY_CHECK_CHOICES:
        raise ProtectionRefused(
            f"a reality check comes every 15, 30 or 60 minutes, not {minutes!r}",
            code=ErrorCode.INVALID_LIMIT,
            details={"minutes": str(minutes)},
        )
    now = timezone.now()
    with transaction.atomic():
        row = _row_locked(user)
        before = row.reality_check_minutes
        row.reality_check_minutes = minutes
        if _running(row, now=now):
            row.reality_check_every = min(filter(None, (row.reality_check_every, minutes)))
            row.reality_check_due_at = _earliest(
                row.reality_check_due_at, now + timedelta(minutes=row.reality_check_every)
            )
        row.save()
        _changed(row, action="protection_reality_check_chosen", before={"minutes": before}, after={"minutes": minutes})
        return protection_read(row, at=now)


def protection_break_take(*, user: User, kind: str, duration: str) -> Protection:
    """A time-out (``kind`` "time_out": 24h, 7d, 6w) or a self-exclusion ("self_exclusion": 6m, 1y, 5y): no
    bet, no deposit until its end, which nobody can bring forward."""
    choices = {"time_out": TIME_OUTS, "self_exclusion": SELF_EXCLUSIONS}.get(kind)
    if choices is None or duration not in choices:
        raise ProtectionRefused(
            f"a break is a time-out of 24h, 7d or 6w or a self-exclusion of 6m, 1y or 5y, not {kind!r} {duration!r}",
            code=ErrorCode.INVALID_LIMIT,
            details={"kind": str(kind), "duration": str(duration)},
        )
    now = timezone.now()
    field = "timed_out_until" if kind == "time_out" else "self_excluded_until"
    with transaction.atomic():
        row = _row_locked(user)
        before = getattr(row, field)
        setattr(row, field, max(filter(None, (before, now + choices[duration]))))
        row.save()
        _changed(
            row,
            action=f"protection_{kind}",
            before={"until": _said(before)},
            after={"until": _said(getattr(row, field))},
        )
        return protection_read(row, at=now)


def protection_operator_exclude(*, user: User, actor_label: str, reason: str = "") -> Protection:
    """The operator's exclusion (its own self-exclusion register): at once, until it lifts it."""
    now = timezone.now()
    with transaction.atomic():
        row = _row_locked(user)
        before = row.operator_excluded_at
        row.operator_excluded_at = before or now
        row.save()
        _changed(
            row,
            action="protection_operator_excluded",
            before={"since": _said(before)},
            after={"since": _said(row.operator_excluded_at)},
            label=actor_label,
            reason=reason,
        )
        return protection_read(row, at=now)


def protection_operator_exclusion_lift(*, user: User, actor_label: str, reason: str = "") -> Protection:
    """The operator lifts its own exclusion; the player's own breaks stay."""
    now = timezone.now()
    with transaction.atomic():
        row = _row_locked(user)
        before = row.operator_excluded_at
        row.operator_excluded_at = None
        row.save()
        _changed(
            row,
            action="protection_operator_exclusion_lifted",
            before={"since": _said(before)},
            after={"since": None},
            label=actor_label,
            reason=reason,
        )
        return protection_read(row, at=now)


def play_session_start(
    *,
    user: User,
    reality_check_minutes: int | None = None,
    session_limit_minutes: int | None = None,
    loss_limit: Decimal | None = None,
) -> Protection:
    """A play session (a sign-in, or a partner's launch with its own limits): reality checks every the shortest
    of the launch's and the player's minutes, else the market's (``PLAYER_REALITY_CHECK_MINUTES``; 0: none);
    its end at the shorter of the launch's and the player's session limits; the launch's loss limit.

    A session still running (``_running``: another device, a second launch) is not restarted, only made
    stricter: its start, its end and a reality check already due stand, so signing in again dodges neither."""
    reality_check_minutes = _minutes_checked(reality_check_minutes, what="a reality check interval")
    session_limit_minutes = _minutes_checked(session_limit_minutes, what="a session limit")
    if loss_limit is not None:
        loss_limit = amount_checked(loss_limit, error=ProtectionRefused, what="the session's loss limit")
    now = timezone.now()
    with transaction.atomic():
        row = _row_locked(user)
        in_force = protection_read(row, at=now)
        chosen = [m for m in (reality_check_minutes, row.reality_check_minutes) if m]
        every = min(chosen) if chosen else settings.PLAYER_REALITY_CHECK_MINUTES or None
        minutes = [m for m in (session_limit_minutes, in_force.session_minutes) if m]
        ends_at = now + timedelta(minutes=min(minutes)) if minutes else None
        due_at = now + timedelta(minutes=every) if every else None
        if _running(row, now=now):
            ends_at = _earliest(row.session_ends_at, ends_at)
            due_at = _earliest(row.reality_check_due_at, due_at)
            every = min(filter(None, (row.reality_check_every, every)), default=None)
            loss_limit = min(filter(None, (row.session_loss_limit, loss_limit)), default=None)
        else:
            row.session_started_at = now
            row.session_limit_told = False
        row.session_ends_at, row.reality_check_due_at = ends_at, due_at
        row.session_loss_limit, row.reality_check_every = loss_limit, every
        row.save()
        _told(row)  # a sign-in, not a change of the player's protection: told to their pages, not audited
        return protection_read(row, at=now)


def _running(row: PlayerProtection, *, now: datetime) -> bool:
    """A session started within ``SESSION_LONGEST`` and not ended by its limit."""
    started = row.session_started_at
    ended = row.session_ends_at is not None and row.session_ends_at <= now
    return started is not None and started > now - SESSION_LONGEST and not ended


def _earliest(*moments: datetime | None) -> datetime | None:
    return min(filter(None, moments), default=None)


def sessions_ended_mark(*, now: datetime, limit: int = 500) -> list[int]:
    """Up to ``limit`` play sessions whose limit passed by ``now`` and nobody was told of yet, marked told
    (once per session: the rows locked, those another run holds skipped); their players' pages told on commit
    (the ``protection`` event ends the session there). The players' ids; call it inside the transaction that
    tells anyone else (a partner's webhook)."""
    with transaction.atomic():
        user_ids = list(
            PlayerProtection.objects.select_for_update(skip_locked=True)
            .filter(session_limit_told=False, session_ends_at__lte=now)
            .order_by("session_ends_at", "pk")
            .values_list("pk", flat=True)[:limit]
        )
        PlayerProtection.objects.filter(pk__in=user_ids).update(session_limit_told=True, updated_at=now)
        told = players_protection(user_ids=user_ids, at=now)
        user_events_send(event_type=PROTECTION_EVENT, data_by_user={pk: protection_public(told[pk]) for pk in user_ids})
        return user_ids


def reality_check_answer(*, user: User, answer: str) -> dict:
    """The player's answer to a due reality check: betting goes on until the next one (whatever the answer:
    "leave" and "history" take the page elsewhere). The session's summary, as the check showed it."""
    if answer not in REALITY_CHECK_ANSWERS:
        raise ProtectionRefused(
            f"a reality check is answered continue, leave or history, not {answer!r}",
            code=ErrorCode.INVALID_LIMIT,
            details={"answer": str(answer)},
        )
    now = timezone.now()
    with transaction.atomic():
        row = _row_locked(user)
        if row.reality_check_due_at is None or row.reality_check_due_at > now or not row.reality_check_every:
            raise ProtectionRefused("no reality check is due", code=ErrorCode.INVALID_LIMIT)
        row.reality_check_due_at = now + timedelta(minutes=row.reality_check_every)
        row.save(update_fields=["reality_check_due_at", "updated_at"])
        summary = session_summary(protection=protection_read(row, at=now))
        _changed(row, action="protection_reality_check_answered", before=None, after={"answer": answer, **summary})
        return summary


def session_summary(*, protection: Protection) -> dict:
    """The session so far, as a reality check shows it: its minutes, stakes, returns (after any result
    correction, as the loss limits count them) and net result."""
    if protection.session_started_at is None:
        return {"minutes": 0, "staked": "0.00", "returned": "0.00", "net": "0.00"}
    bets = Bet.objects.filter(user_id=protection.user_id, created_at__gte=protection.session_started_at).exclude(
        state=Bet.State.CANCELLED
    )
    sums = bets.aggregate(staked=Sum("stake"), returned=Sum(bet_returned()))
    staked, returned = money(sums["staked"] or 0), money(sums["returned"] or 0)
    minutes = int((protection.at - protection.session_started_at).total_seconds() // 60)
    return {"minutes": minutes, "staked": str(staked), "returned": str(returned), "net": str(returned - staked)}


def protection_public(protection: Protection) -> dict:
    """What the player's pages know of their protection (the snapshot and the ``protection`` event)."""

    def moment(value: datetime | None) -> str | None:
        return value.isoformat() if value else None

    return {
        "reality_check_due_at": moment(protection.reality_check_due_at),
        "reality_check_every": protection.reality_check_every,
        "session_started_at": moment(protection.session_started_at),
        "session_ends_at": moment(protection.session_ends_at),
        "timed_out_until": moment(protection.timed_out_until),
        "self_excluded_until": moment(protection.self_excluded_until),
        "operator_excluded": protection.operator_excluded_at is not None,
    }


def _row_locked(user: User) -> PlayerProtection:
    PlayerProtection.objects.get_or_create(user_id=user.pk)
    return PlayerProtection.objects.select_for_update().get(pk=user.pk)


def _stricter_or_same(value: Decimal | int | None, current: Decimal | int | None) -> bool:
    return (current is None and value is None) or (value is not None and (current is None or value <= current))


def _limit_checked(name: str, value: object) -> Decimal | int | None:
    if name not in LIMIT_FIELDS:
        raise ProtectionRefused(
            f"there is no limit {name!r}", code=ErrorCode.INVALID_LIMIT, details={"limit": str(name)}
        )
    if value is None or value == "":
        return None
    if name == "session_minutes":
        return _minutes_checked(value, what="a session limit", limit=name)
    return amount_checked(value, error=ProtectionRefused, what=f"the {name.replace('_', ' ')} limit")


def _minutes_checked(value: object, *, what: str, limit: str = "") -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 0 < value <= MAX_SESSION_MINUTES:
        raise ProtectionRefused(
            f"{what} is 1 to {MAX_SESSION_MINUTES} minutes, not {value!r}",
            code=ErrorCode.INVALID_LIMIT,
            details={"value": str(value), **({"limit": limit} if limit else {})},
        )
    return value


def _said(value: object) -> str | None:
    if value is None:
        return None
    return value.isoformat() if isinstance(value, datetime) else str(value)


def _changed(
    row: PlayerProtection,
    *,
    action: str,
    before: dict | None,
    after: dict,
    actor: User | None = None,
    label: str = "",
    reason: str = "",
) -> None:
    """Audited (by ``actor``, else by ``label``'s operator, else by the player), and told to the player's open
    pages on commit."""
    audit_record(
        action=action,
        actor=actor if actor is not None or label else row.user,
        actor_label=label or "player",
        obj=row,
        before=before,
        after=after,
        reason=reason,
    )
    _told(row)


def _told(row: PlayerProtection) -> None:
    """The player's open pages told their protection as it now stands, on commit."""
    user_event_send(
        user_id=row.user_id,
        event_type=PROTECTION_EVENT,
        data=protection_public(protection_read(row, at=timezone.now())),
    )
