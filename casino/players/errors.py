"""A player's request refused before any service sees it: who asks, at which table, how often, in what shape.
The table page's endpoints answer each with its class's status; the table's socket with its code alone."""

from __future__ import annotations

from kernel.errors import ErrorCode, PuntoError


class RequestRefused(PuntoError):
    """A request the endpoints cannot act on: not a JSON object, too large."""


class NotSignedIn(RequestRefused):
    http_status = 401
    default_code = ErrorCode.NOT_SIGNED_IN


class StaffAccount(RequestRefused):
    """Staff accounts do not play."""

    http_status = 403
    default_code = ErrorCode.STAFF_ACCOUNT


class NoSuchTable(RequestRefused):
    http_status = 404
    default_code = ErrorCode.NO_SUCH_TABLE


class TooFast(RequestRefused):
    """More bet requests in a second than a player may send."""

    http_status = 429
    default_code = ErrorCode.TOO_FAST


class TablesRefused(RequestRefused):
    """The multi-table view's choice of tables: none or more than four, or one it cannot show (unknown, dealt on
    demand)."""

    http_status = 400
    default_code = ErrorCode.BAD_REQUEST
