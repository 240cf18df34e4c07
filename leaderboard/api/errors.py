"""One JSON shape for every API error::

    {"error": {"code": "not_found", "message": "Not found.", "details": {}}}

``code`` is stable (clients branch on it), ``message`` is for people, ``details`` carries the
per-field or per-condition messages. DRF's own errors (validation, authentication, permission,
throttling, 404, 405, 415...) are converted by :func:`exception_handler`; our views raise
:class:`ApiError` for the rest.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class ApiError(exceptions.APIException):
    """An error with its own code, message and details."""

    def __init__(
        self, code: str, message: str, *, status_code: int = 400, details: Any = None
    ) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.error_code = code
        self.message = message
        self.details = details or {}


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or {}}}


_MESSAGES = {
    "invalid": "The request is invalid; see details.",
}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # not an API exception: a real server error, left to Django
    if isinstance(exc, ApiError):
        response.data = error_body(exc.error_code, exc.message, exc.details)
        return response
    if isinstance(exc, exceptions.ValidationError):
        details: dict[str, Any] = (
            exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        )
        response.data = error_body("invalid", _MESSAGES["invalid"], details)
        return response
    if isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
        message = str(exc.detail) if not isinstance(exc.detail, list | dict) else exc.default_detail
        # what the exception carries for programs (a refused token's ``tokens_url``)
        details = dict(getattr(exc, "details", None) or {})
        # how long a throttled client is to wait (DRF's Throttled sets it; its stubs lack it)
        wait = getattr(exc, "wait", None) if isinstance(exc, exceptions.Throttled) else None
        if wait is not None:
            details["retry_after"] = int(wait + 0.999)
        response.data = error_body(code, str(message), details)
        return response
    return response


def not_found_payload() -> dict[str, Any]:
    return error_body("not_found", "Not found.")


__all__ = ["ApiError", "error_body", "exception_handler", "status"]
