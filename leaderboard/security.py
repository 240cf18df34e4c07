"""Security middleware: a request-size limit enforced before any body is read (and a chunked
body without a length refused, not read as empty), NUL-free query strings, and the
Content-Security-Policy header; the client address every per-address limit uses, and the
log-in limit's settings for django-axes.

Written here rather than depending on django-csp: the policy is one static header (our pages
have no inline script; data reaches the charts through ``json_script`` blocks, which are JSON,
not script), and the size limit is a Content-Length comparison.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Max, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser as _DRFJSONParser

from leaderboard.addresses import client_address
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


def _length_required(request: HttpRequest) -> HttpResponse:
    message = (
        "The request body was sent in chunks (Transfer-Encoding: chunked) without a "
        "Content-Length header, and this site reads a body only with its length: send the "
        "request again with a Content-Length (curl -F and the trackboard command do; do not "
        "add a Transfer-Encoding: chunked header). Nothing was stored and nothing counts "
        "against your quota."
    )
    if request.path.startswith("/api/"):
        from leaderboard.api.errors import error_body  # as in _too_large

        return JsonResponse(error_body("length_required", message), status=411)
    return error_page(411, message, "The upload has no length")


class RequestSizeLimitMiddleware:
    """Refuse a request whose declared body exceeds ``MAX_REQUEST_BYTES`` with 413, before
    Django reads (or spools to disk) a byte of it; and a chunked body without a length with
    411, which Django would otherwise read as empty (a form missing every field)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # A WSGI server hands a chunked body over without CONTENT_LENGTH (nginx in front
        # buffers it and sends the length, so this is a client talking to the app directly).
        chunked = "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not request.META.get("CONTENT_LENGTH"):
            return _length_required(request)
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
    a username can be (a hostile form cannot make the record large). The log-in form's field is
    ``login`` (a username or an address), which allauth hands to the backends as ``username``
    (and as ``email`` when it looks like one)."""
    raw = (credentials or {}).get("username")
    if raw is None:
        post = getattr(request, "POST", {})
        raw = post.get("login", post.get("username"))
    if not isinstance(raw, str):
        return None
    return raw.strip().lower()[:150].replace("\x00", "") or None


def login_locked_out(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    """The answer to a log-in refused by the failure limit, on the site's form and the admin's:
    which lock it is (this account from this address, or this address for every account),
    when it ends, and what lifts it sooner."""
    window = dt.timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_SECONDS)
    address = getattr(request, "axes_ip_address", None) or client_address(request)
    username = login_username(request, credentials)
    recent = AccessAttempt.objects.filter(
        ip_address=address, attempt_time__gte=timezone.now() - window
    )
    limit = settings.LOGIN_FAILURE_LIMIT
    mine = recent.filter(username=username) if username else recent.none()
    account_locked = (mine.aggregate(n=Sum("failures_since_start"))["n"] or 0) >= limit
    last = (mine if account_locked else recent).aggregate(t=Max("attempt_time"))["t"]
    seconds = settings.LOGIN_FAILURE_WINDOW_SECONDS
    if last is not None:
        seconds = max(1, int((last + window - timezone.now()).total_seconds() + 0.999))
    minutes = max(1, (seconds + 59) // 60)
    when = f"{minutes} minute{'s' if minutes != 1 else ''}"
    if account_locked:
        message = (
            f"Too many failed log-ins for this account from your address: log-ins to it from "
            f"here are refused for {when}. Resetting your password (“Forgot your password?” "
            "on the log-in page) lifts this at once; other addresses are not affected."
        )
    else:
        message = (
            f"Too many failed log-ins from your address, for any account: log-ins from here "
            f"are refused for {when}. Logging in from another network works now."
        )
    return error_page(429, message, "Too many failed log-ins", **{"Retry-After": str(seconds)})


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
