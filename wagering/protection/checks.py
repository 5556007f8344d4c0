"""What a player's protection refuses, and why in words: every bet path and the deposit path ask here, with
the ``Protection`` and the money counted (``standing``) read in their own transaction. Pure: no reads."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from kernel.errors import ErrorCode
from wagering.errors import PlayerProtected
from wagering.protection.periods import period_bounds
from wagering.protection.standing import Protection

_WINDOW_SAID = {"day": "daily", "week": "weekly", "month": "monthly", "session": "session"}


def play_refusal(protection: Protection) -> PlayerProtected | None:
    """Why the player may not bet at all now (a break from play, the session's end, a reality check to
    answer), or None. Deposits are refused by the breaks alone."""
    refusal = break_refusal(protection)
    if refusal is not None:
        return refusal
    at = protection.at
    if protection.session_ends_at is not None and protection.session_ends_at <= at:
        return PlayerProtected(
            f"your session limit of {_minutes(protection)} minutes was reached at "
            f"{_when(protection.session_ends_at)}: sign in again to start a new session",
            code=ErrorCode.SESSION_LIMIT,
            details={"ended_at": protection.session_ends_at.isoformat()},
        )
    if protection.reality_check_due_at is not None and protection.reality_check_due_at <= at:
        return PlayerProtected(
            "time for your reality check: answer it to go on playing",
            code=ErrorCode.REALITY_CHECK,
            details={"due_at": protection.reality_check_due_at.isoformat()},
        )
    return None


def break_refusal(protection: Protection) -> PlayerProtected | None:
    """A self-exclusion (the player's or their operator's) or a time-out in force, or None."""
    at = protection.at
    if protection.operator_excluded_at is not None:
        return PlayerProtected(
            "your account is excluded from play by your operator",
            code=ErrorCode.SELF_EXCLUDED,
            details={"since": protection.operator_excluded_at.isoformat()},
        )
    if protection.self_excluded_until is not None and protection.self_excluded_until > at:
        return PlayerProtected(
            f"you excluded yourself from play until {_when(protection.self_excluded_until)}",
            code=ErrorCode.SELF_EXCLUDED,
            details={"until": protection.self_excluded_until.isoformat()},
        )
    if protection.timed_out_until is not None and protection.timed_out_until > at:
        return PlayerProtected(
            f"you took a time-out from play until {_when(protection.timed_out_until)}",
            code=ErrorCode.TIMED_OUT,
            details={"until": protection.timed_out_until.isoformat()},
        )
    return None


def loss_refusal(protection: Protection, *, lost: dict[str, Decimal], stake: Decimal) -> PlayerProtected | None:
    """Refused if losing ``stake`` too could take the net loss past a loss limit (``lost``: the net loss
    in each window so far, open bets counted as lost)."""
    for window, (limit, _, resets_at) in protection.loss_windows().items():
        so_far = lost.get(window, Decimal(0))
        if so_far + stake > limit:
            said = _WINDOW_SAID[window]
            resets = f"; it resets at {_when(resets_at)}" if resets_at else "; it resets with your next session"
            return PlayerProtected(
                f"these bets of {stake} could take your net loss of {so_far} past your {said} loss limit of "
                f"{limit}{resets}",
                code=ErrorCode.LOSS_LIMIT,
                details={
                    "limit": str(limit),
                    "period": window,
                    "net_loss": str(so_far),
                    "stake": str(stake),
                    "room": str(max(limit - so_far, Decimal(0))),
                    **({"resets_at": resets_at.isoformat()} if resets_at else {}),
                },
            )
    return None


def deposit_refusal(
    protection: Protection, *, deposited: dict[str, Decimal], amount: Decimal
) -> PlayerProtected | None:
    """Refused during a break from play, or if ``amount`` would take a period's deposits past its limit."""
    refusal = break_refusal(protection)
    if refusal is not None:
        return refusal
    for period, limit in protection.deposit.items():
        so_far = deposited.get(period, Decimal(0))
        if so_far + amount > limit:
            resets_at = period_bounds(period=period, at=protection.at)[1]
            return PlayerProtected(
                f"a deposit of {amount} would take your deposits this {period} from {so_far} past your "
                f"{_WINDOW_SAID[period]} deposit limit of {limit}; it resets at {_when(resets_at)}",
                code=ErrorCode.DEPOSIT_LIMIT,
                details={
                    "limit": str(limit),
                    "period": period,
                    "deposited": str(so_far),
                    "amount": str(amount),
                    "resets_at": resets_at.isoformat(),
                },
            )
    return None


def _minutes(protection: Protection) -> int:
    return int((protection.session_ends_at - protection.session_started_at).total_seconds() // 60)


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M %Z")
