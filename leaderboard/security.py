"""Security middleware: a request-size limit enforced before any body is read, NUL-free query
strings, and the Content-Security-Policy header; the client address every per-address limit
uses, and the log-in limit's settings for django-axes.

Written here rather than depending on django-csp: the policy is one static header (our pages
have no inline script; data reaches the charts through ``json_script`` blocks, which are JSON,
not script), and the size limit is a Content-Length comparison.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser as _DRFJSONParser

from leaderboard.errorpages import error_page


def _too_large(request: HttpRequest, declared: int) -> HttpResponse:
    limit = settings.MAX_REQUEST_BYTES
    message = (
        f"The request is {declared:,} bytes; the largest accepted is {limit:,} bytes "
        f"(each prediction file at most {settings.MAX_UPLOAD_BYTES:,} bytes). Nothing was "
        "stored and nothing counts against your quota."
    )
    if request.path.startswith("/api/"):
        # Imported here: DRF's modules import this one's JSONParser while they load.
        from leaderboard.api.errors import error_body

        return JsonResponse(error_body("request_too_large", message), status=413)
    return error_page(413, message, "The upload is too large")


class RequestSizeLimitMiddleware:
    """Refuse a request whose declared body exceeds ``MAX_REQUEST_BYTES`` with 413, before
    Django reads (or spools to disk) a byte of it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        raw = request.META.get("CONTENT_LENGTH") or "0"
        try:
            declared = int(raw)
        except ValueError:
            declared = 0  # Django itself treats an unreadable length as an empty body
        if declared > settings.MAX_REQUEST_BYTES:
            return _too_large(request, declared)
        return self.get_response(request)


class ContentSecurityPolicyMiddleware:
    """Add ``settings.CONTENT_SECURITY_POLICY`` to every response that has none."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy = settings.CONTENT_SECURITY_POLICY
        for prefix, override in settings.CONTENT_SECURITY_POLICY_OVERRIDES.items():
            if request.path.startswith(prefix):
                policy = override
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        return response


def login_failure_limit(request: Any, credentials: Any) -> int:
    return int(settings.LOGIN_FAILURE_LIMIT)


def login_cool_off(request: Any) -> dt.timedelta:
    return dt.timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_SECONDS)


def login_username(request: Any, credentials: Any) -> str | None:
    """The account a log-in names, as the limit counts it: trimmed, lower-cased, no longer than
    a username can be (a hostile form cannot make the record large)."""
    raw = (credentials or {}).get("username")
    if raw is None:
        raw = getattr(request, "POST", {}).get("username")
    if not isinstance(raw, str):
        return None
    return raw.strip().lower()[:150].replace("\x00", "") or None


def login_locked_out(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    """The answer to a log-in refused by the failure limit, on the site's form and the admin's."""
    seconds = settings.LOGIN_FAILURE_WINDOW_SECONDS
    minutes = max(1, seconds // 60)
    return error_page(
        429,
        f"Too many failed log-ins; try again in {minutes} minute(s), or reset your password.",
        "Too many failed log-ins",
        **{"Retry-After": str(seconds)},
    )


class QueryStringMiddleware:
    """A NUL in the query string (``%00``) gets 400: no database stores it, so a view that
    filters on the parameter would otherwise fail with a server error."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if any("\x00" in key or "\x00" in value for key, value in _query_items(request)):
            message = "The query string contains a NUL character (%00)."
            if request.path.startswith("/api/"):
                from leaderboard.api.errors import error_body

                return JsonResponse(error_body("invalid", message), status=400)
            return error_page(400, message)
        return self.get_response(request)


def _query_items(request: HttpRequest) -> list[tuple[str, str]]:
    return [(k, v) for k, values in request.GET.lists() for v in values]


class JSONParser(_DRFJSONParser):
    """DRF's JSON parser, with a body nested too deeply for Python's decoder answered as a 400
    (``RecursionError`` is not a ``ValueError``, so DRF would let it become a 500)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
