"""What a token may do, checked in one place: :class:`TokenScope`, a permission every API view
has by default (``REST_FRAMEWORK["DEFAULT_PERMISSION_CLASSES"]``).

A view needs the scope its ``token_scope`` attribute names; without one, reading (GET, HEAD,
OPTIONS) needs "read" and anything else "submit" (uploading a run, editing its method,
choosing the final and public runs, cancelling). Team, membership and registration endpoints
say "team", the organiser API "organise". A browser's session is not a token and is not
limited by scopes: the pages already allow exactly what their user may do.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.permissions import SAFE_METHODS, BasePermission

from leaderboard.api import services
from leaderboard.api.models import ApiToken, Scope, includes

#: What a token of each scope may do, for the refusal's first half ("This token may only ...").
MAY = {
    Scope.READ: "read",
    Scope.SUBMIT: "read and submit runs",
    Scope.TEAM: "submit runs and manage your teams",
    Scope.ORGANISE: "do everything you may do",
}
#: What needs each scope, for the refusal's second half ("... needs a token with ...").
NEEDS = {
    Scope.SUBMIT: "uploading or changing a run",
    Scope.TEAM: "changing a team, its members or its registrations",
    Scope.ORGANISE: "the organiser API",
}


def tokens_page(request: Any) -> str:
    """The profile page's tokens section, where a token is made or renewed, as a full URL."""
    return str(request.build_absolute_uri(reverse("accounts:profile"))) + "#api-tokens"


class TokenExpired(exceptions.AuthenticationFailed):
    """A known token past its ``expires_at``: 401 saying when it ended and where to renew it.

    DRF's own exception classes, not ``errors.ApiError``: DRF imports this module (its
    settings name it) while ``rest_framework.views``, which ``errors`` imports, is loading;
    ``errors.exception_handler`` puts ``details`` in the answer."""

    def __init__(self, token: ApiToken, request: Any) -> None:
        page = tokens_page(request)
        day = timezone.localdate(token.expires_at).isoformat()
        super().__init__(
            f"This token expired on {day}. Renew it or make a new one on your profile page: {page}",
            code="token_expired",
        )
        self.details = {"expired_at": token.expires_at.isoformat(), "tokens_url": page}


class ScopeTooNarrow(exceptions.PermissionDenied):
    """403: the token's scope does not include what the request needs; says which scope it
    needs and where to make such a token."""

    def __init__(self, token: ApiToken, needed: str, request: Any) -> None:
        page = tokens_page(request)
        super().__init__(
            f"This token may only {MAY[Scope(token.scope)]}: {NEEDS[Scope(needed)]} needs a "
            f"token with the '{needed}' scope. Make one on your profile page: {page}",
            code="token_scope",
        )
        self.details = {"scope": token.scope, "needed": needed, "tokens_url": page}


def needed_scope(method: str, view: Any) -> str:
    """The scope ``view`` needs of a token for a request of ``method``."""
    declared = getattr(view, "token_scope", None)
    if declared:
        return str(declared)
    return Scope.READ if method in SAFE_METHODS else Scope.SUBMIT


class TokenScope(BasePermission):
    """Refuses (403, ``token_scope``) a request whose token's scope is narrower than what the
    view needs, saying which scope it needs and where to make such a token."""

    def has_permission(self, request: Any, view: Any) -> bool:
        token = request.auth
        if not isinstance(token, ApiToken):
            return True  # a session, or no credentials at all
        needed = needed_scope(request.method, view)
        if includes(token.scope, needed):
            return True
        if needed == Scope.ORGANISE and not services.may_organise(token.user):
            # No token of theirs could organise: the view answers them as anyone who does
            # not organise the challenge (404), not with advice they cannot follow.
            return True
        raise ScopeTooNarrow(token, needed, request)
