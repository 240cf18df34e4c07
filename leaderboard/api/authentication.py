"""Token authentication: ``Authorization: Bearer <key>`` (``Token <key>`` is accepted too)."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header

from leaderboard.addresses import client_address
from leaderboard.api import services
from leaderboard.api.models import ApiToken
from leaderboard.api.scopes import TokenExpired
from leaderboard.throttles import AuthFailureIPThrottle

KEYWORDS = (b"bearer", b"token")


class TokenAuthentication(BaseAuthentication):
    """Authenticates a personal access token made on the profile page; ``request.auth`` is
    the :class:`ApiToken`, whose scope :class:`leaderboard.api.scopes.TokenScope` checks.

    Wrong keys are counted per IP address; past the ``auth-failure-ip`` rate a wrong key from
    that address gets 429 with ``Retry-After`` until the window has passed. A valid key is
    always accepted: colleagues behind one address (a lab's NAT) never lock each other out
    by a mistyped or revoked token. A key is 32 random bytes, so the limit is there to slow a
    flood of wrong keys down, not to make guessing one possible. An expired key is a right
    key: it is refused with its own message, and not counted.
    """

    def authenticate(self, request: Any) -> tuple[Any, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                "Invalid Authorization header: use 'Bearer <token>'."
            )
        try:
            key = parts[1].decode()
        except UnicodeDecodeError:
            key = ""
        token = services.token_for_key(key) if key else None
        if token is not None:
            if token.expired:
                raise TokenExpired(token, request)
            services.touch(token)
            return token.user, token
        throttle, address = AuthFailureIPThrottle(), client_address(request)
        if throttle.blocked(address):
            raise exceptions.Throttled(wait=throttle.wait())
        throttle.record_failure(address)
        raise exceptions.AuthenticationFailed("Invalid or revoked token.")

    def authenticate_header(self, request: Any) -> str:
        return 'Bearer realm="api"'
