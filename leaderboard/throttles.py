"""DRF throttles: submission creation and token endpoints, per user and per IP address, on
state-changing requests only (reading never uses up an upload); failures (wrong tokens,
rejected uploads) per IP address. (The account pages that create accounts or send mail are
limited by django-allauth's ``ACCOUNT_RATE_LIMITS``, from the same environment.) The address
is ``addresses.client_address``, so a client cannot move it with a forged ``X-Forwarded-For``.
While the cache is down a throttle counts nothing and lets the request through (the cache logs
the error).

Rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (each one overridable from the
environment, see settings). DRF's ``SimpleRateThrottle`` copies the rates when its module is
imported; these classes read them on every request instead, so a deployment's settings and a
test's ``settings`` fixture both take effect. A throttled call answers 429 with ``Retry-After``.

The API, the upload page and the profile's token form all count with them, so they live below
every app that uses them.
"""

from __future__ import annotations

from typing import Any, cast

from rest_framework.permissions import SAFE_METHODS
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from leaderboard.addresses import client_address


class _Throttle(SimpleRateThrottle):
    def __init__(self) -> None:
        # Deliberately skips the parent's __init__, which reads the rates at import time.
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)

    #: its rate's name in ``DEFAULT_THROTTLE_RATES`` (every throttle here has one)
    scope: str

    def get_rate(self) -> str | None:
        # rates are strings ("30/hour"); the stubs type them as numbers
        rates = cast(dict[str, str | None], api_settings.DEFAULT_THROTTLE_RATES)
        return rates.get(self.scope)

    def get_ident(self, request: Any) -> str:
        return client_address(request)

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)


class _PerUser(_Throttle):
    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if not request.user.is_authenticated:
            return None  # anonymous calls are refused before they count
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class _PerIP(_Throttle):
    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class SubmitUserThrottle(_PerUser):
    scope = "submit-user"


class SubmitIPThrottle(_PerIP):
    scope = "submit-ip"


class TokenUserThrottle(_PerUser):
    scope = "token-user"


class TokenIPThrottle(_PerIP):
    scope = "token-ip"


class _FailureIPThrottle(_PerIP):
    """Counts failures, not requests, per client address (``addresses.client_address``):
    ``blocked`` before the work, ``record_failure`` after a failure. Keyed by the address
    itself, so a service that is given the address counts without the request."""

    def blocked(self, address: str) -> bool:
        """Whether this address has used up its failures (without counting a new one)."""
        if self.rate is None or self.num_requests is None or self.duration is None:
            return False
        self.key = self.cache_format % {"scope": self.scope, "ident": address}
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        return len(self.history) >= self.num_requests

    def record_failure(self, address: str) -> None:
        if not self.blocked(address):
            self.throttle_success()


class AuthFailureIPThrottle(_FailureIPThrottle):
    """Counts wrong tokens per IP address, so keys cannot be guessed at speed."""

    scope = "auth-failure-ip"


class RejectedUploadIPThrottle(_FailureIPThrottle):
    """Counts uploads the request refused per IP address (web form and API alike: a file
    missing, too large, for no condition), never charged to a quota. The submission service
    checks and counts it (``submit``'s ``client_address``), beside the per-team limit on the
    refusals of the worker that reads the files; both raise ``TooManyRejected``."""

    scope = "rejected-ip"


SUBMIT_THROTTLES = [SubmitUserThrottle, SubmitIPThrottle]
TOKEN_THROTTLES = [TokenUserThrottle, TokenIPThrottle]
