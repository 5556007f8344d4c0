"""The floor's refusal: a ``TableError`` (``kernel.errors.PuntoError``) names its rule in ``code`` and says
why in its message. Nothing was changed when one is raised."""

from __future__ import annotations

from kernel.errors import PuntoError


class TableError(PuntoError):
    """A table operation refused: ``code`` names the rule, the message says why."""
