"""Refusals of the wagering services (``kernel.errors.PuntoError``): a stable ``code``, a human ``message``
and string ``details``."""

from __future__ import annotations

from kernel.errors import ErrorCode, PuntoError


class WageringError(PuntoError):
    """A money refusal: nothing was placed, nothing moved."""


class BetRejected(WageringError):
    """A batch of bets (or an undo, remove or rebet) refused: nothing was placed, nothing moved."""


class BetConflict(BetRejected):
    """A bet request refused by the state of things rather than by what it asks: the coup takes no bets (or
    no longer), the round asked is over, there is nothing to undo or repeat. ``codes``: the ones it carries (a
    refusal recorded under a request_id is raised again by them as what it was)."""

    http_status = 409
    codes = frozenset(
        {
            ErrorCode.BETTING_CLOSED,
            ErrorCode.NO_BET_COUP,
            ErrorCode.NO_BETS,
            ErrorCode.NO_PREVIOUS_BETS,
            ErrorCode.NO_LIVE_COUP,
            ErrorCode.ROUND_CHANGED,
            ErrorCode.ROUND_NOT_CURRENT,
        }
    )


class PlayerProtected(BetRejected):
    """A bet or deposit refused by the player's protection: a limit they set (or their operator set at launch),
    a reality check to answer, a time-out or an exclusion (``wagering.protection``). ``codes``: the ones it
    carries."""

    http_status = 403
    codes = frozenset(
        {
            ErrorCode.DEPOSIT_LIMIT,
            ErrorCode.LOSS_LIMIT,
            ErrorCode.REALITY_CHECK,
            ErrorCode.SELF_EXCLUDED,
            ErrorCode.SESSION_LIMIT,
            ErrorCode.TIMED_OUT,
        }
    )


class ProtectionRefused(WageringError):
    """A change of a player's protection refused: an invalid limit, a loosening staff may not make, an
    exclusion that cannot be lifted before its end."""


class WalletRejected(WageringError):
    """A deposit or withdrawal refused: an invalid amount or not enough funds."""


class IdempotencyConflict(WageringError):
    """An idempotency key used again with different parameters, or while its first request is in progress."""

    http_status = 409


class SettlementRefused(WageringError):
    """A coup that cannot be settled or refunded in its state."""


class ChipsRefused(WageringError):
    """A buy-in, fill, credit or tray count refused: nothing moved."""
