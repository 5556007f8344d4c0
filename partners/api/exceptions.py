"""Every error of the partner API as ``{"error": {"code", "message", "details"}}``, with a stable code.

400 bad input or a refused request, 401 no or a bad key, 403 a disabled partner, 404 not found
(another partner's player included), 409 a conflict with the state of things (betting closed,
an idempotency key used for another request), 413 a body over DATA_UPLOAD_MAX_MEMORY_SIZE,
429 over the partner's rate limit, 503 the database unreachable (the request's transaction rolled
back: nothing was written; retry with the same Idempotency-Key) or a seamless wallet's bet it did not
confirm. A refusal of ours (``kernel.errors.PuntoError``) answers its class's status.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import DatabaseError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from kernel.errors import DatabaseUnavailable, ErrorCode, PuntoError

logger = logging.getLogger(__name__)


class BodyTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = ErrorCode.BODY_TOO_LARGE


def error_body(code: str, message: str, details: dict | None = None) -> dict:
    return {"error": {"code": code, "message": message, "details": details or {}}}


def partner_exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, DatabaseError):  # e.g. the connection lost mid-request
        logger.error("partner API: database error", exc_info=exc)
        exc = DatabaseUnavailable()
    if isinstance(exc, PuntoError):  # a refusal, with its class's status
        return Response({"error": exc.as_dict()}, status=exc.http_status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    elif isinstance(exc, RequestDataTooBig):  # Django's DATA_UPLOAD_MAX_MEMORY_SIZE, as the API's JSON error
        exc = BodyTooLarge(f"the request body is limited to {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes")
    response = exception_handler(exc, context)  # DRF's, for its status and headers (WWW-Authenticate, Retry-After)
    if response is None:
        return None
    response.data = _body_of(exc)
    return response


def _body_of(exc: exceptions.APIException) -> dict:
    if isinstance(exc, exceptions.ValidationError):
        details = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        return error_body(ErrorCode.INVALID_REQUEST, _first_problem(details), details)
    if isinstance(exc, exceptions.Throttled):
        wait = round(exc.wait or 0)
        return error_body(
            ErrorCode.RATE_LIMITED, f"too many requests: try again in {wait} s", {"retry_after": str(wait)}
        )
    codes = exc.get_codes()
    return error_body(codes if isinstance(codes, str) else exc.default_code, str(exc.detail))


def _first_problem(details: dict) -> str:
    """The first problem in words, e.g. ``bets.tie: Ensure this value is greater than or equal to 0.01.``"""
    path, problem = [], details
    while isinstance(problem, dict | list) and problem:
        if isinstance(problem, dict):
            field, problem = next(iter(problem.items()))
            if field != "non_field_errors":
                path.append(str(field))
        else:
            problem = problem[0]
    return f"{'.'.join(path)}: {problem}" if path else str(problem)
