"""The floor's refusal: a ``TableError`` carries a stable ``code`` (like ``WageringError``) and a message
that says why. Nothing was changed when one is raised."""

from __future__ import annotations


class TableError(ValueError):
    """A table operation refused: ``code`` names the rule, the message says why."""

    def __init__(self, message: str, code: str = "refused") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
