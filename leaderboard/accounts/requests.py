"""The request of a signed-in user, for the types only: a view behind ``login_required`` (or an
API view behind ``IsAuthenticated``, the API's default) declares it, so that ``request.user``
is a ``User`` where the stubs can only say ``User | AnonymousUser``."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from rest_framework.request import Request


class AuthenticatedHttpRequest(HttpRequest):
    user: User


class AuthenticatedRequest(Request):
    user: User
