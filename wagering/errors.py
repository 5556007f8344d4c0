"""Refusals of the wagering services: a stable ``code``, a human ``message`` and string ``details``."""

from __future__ import annotations

# The answer to a request whose database did not answer (its transaction rolled back), as 503 to clients.
DATABASE_UNAVAILABLE_CODE = "database_unavailable"
DATABASE_UNAVAILABLE_MESSAGE = "the database did not answer: nothing was changed, try again"


class WageringError(Exception):
    def __init__(self, code: str, message: str, details: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "details": self.details}


class BetRejected(WageringError):
    """A batch of bets (or an undo, remove or rebet) refused: nothing was placed, nothing moved."""


class WalletRejected(WageringError):
    """A deposit or withdrawal refused: an invalid amount or not enough funds."""


class IdempotencyConflict(WageringError):
    """An idempotency key used again with different parameters."""


class SettlementRefused(WageringError):
    """A coup that cannot be settled or refunded in its state."""


class ChipsRefused(WageringError):
    """A buy-in, fill, credit or tray count refused: nothing moved."""
