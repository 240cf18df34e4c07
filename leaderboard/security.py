"""Security middleware: a request-size limit enforced before any body is read, and the
Content-Security-Policy header.

Written here rather than depending on django-csp: the policy is one static header (our pages
have no inline script; data reaches the charts through ``json_script`` blocks, which are JSON,
not script), and the size limit is a Content-Length comparison.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser as _DRFJSONParser


def _too_large(request: HttpRequest, declared: int) -> HttpResponse:
    limit = settings.MAX_REQUEST_BYTES
    message = (
        f"The request is {declared:,} bytes; the largest accepted is {limit:,} bytes "
        f"(each prediction file at most {settings.MAX_UPLOAD_BYTES:,} bytes). Nothing was "
        "stored and nothing counts against your quota."
    )
    if request.path.startswith("/api/"):
        from leaderboard.api.errors import error_body

        return JsonResponse(error_body("request_too_large", message), status=413)
    return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")


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


class LoginThrottleMiddleware:
    """Failed log-ins, counted per client address and per username in the cache; past
    ``LOGIN_FAILURE_LIMIT`` within ``LOGIN_FAILURE_WINDOW_SECONDS`` the log-in form answers 429
    (for that address, or for that username from any address) until the window passes.

    Django's LoginView answers a failed attempt by showing the form again (200) and a success
    with a redirect, so the response status is what is counted.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        from django.urls import reverse

        if request.method != "POST" or request.path != reverse("login"):
            return self.get_response(request)
        keys = self._keys(request)
        if any(cache.get(key, 0) >= settings.LOGIN_FAILURE_LIMIT for key in keys):
            minutes = max(1, settings.LOGIN_FAILURE_WINDOW_SECONDS // 60)
            return HttpResponse(
                f"Too many failed log-ins; try again in {minutes} minute(s), or reset your "
                "password.",
                status=429,
                content_type="text/plain; charset=utf-8",
                headers={"Retry-After": str(settings.LOGIN_FAILURE_WINDOW_SECONDS)},
            )
        response = self.get_response(request)
        if response.status_code == 200:
            for key in keys:
                if not cache.add(key, 1, settings.LOGIN_FAILURE_WINDOW_SECONDS):
                    try:
                        cache.incr(key)
                    except ValueError:  # expired between add and incr
                        cache.add(key, 1, settings.LOGIN_FAILURE_WINDOW_SECONDS)
        return response

    @staticmethod
    def _keys(request: HttpRequest) -> list[str]:
        address = request.META.get("REMOTE_ADDR", "")
        username = (request.POST.get("username") or "").strip().lower()[:150]
        digest = hashlib.sha256(username.encode("utf-8", "replace")).hexdigest()[:32]
        return [f"login-fail:ip:{address}", f"login-fail:user:{digest}"]


class JSONParser(_DRFJSONParser):
    """DRF's JSON parser, with a body nested too deeply for Python's decoder answered as a 400
    (``RecursionError`` is not a ``ValueError``, so DRF would let it become a 500)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
