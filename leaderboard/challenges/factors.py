"""Two factors for those who hold secrets: the one rule, and its three doors.

Organisers (of any challenge), staff and superusers can read hidden gold references and
unrevealed results, so a stolen password alone must not open them: before such a person reaches
an organiser page, the admin or the organiser API they must have a second factor, an
authenticator app (TOTP) or a security key (WebAuthn) of ``allauth.mfa``. Recovery codes alone
do not count: they are the way back in when the phone is lost, not a factor of their own.
Everyone else may add one on their profile and is never asked.

The rule lives here, in the lowest layer that knows who organises (``Challenge.organised_by``;
what counts as a second factor is ``models.has_second_factor``, beside it), so the organiser
pages (``second_factor_required``), the admin site (``admin_trail``) and the organiser API
(``api_refusal``) all ask the same question; ``visibility.access`` asks it of hidden numbers."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest, HttpResponseBase, HttpResponseRedirect
from django.urls import reverse

from leaderboard.challenges.models import SECOND_FACTORS, Challenge, has_second_factor

#: allauth.mfa's page that sets up an authenticator app
SETUP = "mfa_activate_totp"
#: the session's key of the page a person was sent from to set up a factor
NEXT_KEY = "second_factor_next"
PAGE_MESSAGE = (
    "Organisers and staff must set up a second factor before opening organiser pages or the "
    "admin: scan the code below with an authenticator app and enter the code it shows, then "
    "keep the recovery codes somewhere safe."
)


def holds_secrets(user: User | AnonymousUser) -> bool:
    """Whether ``user`` can reach hidden data: staff, a superuser, or an organiser of any
    challenge (``Challenge.organised_by``)."""
    if not user.is_authenticated:
        return False
    if getattr(user, "is_staff", False) or getattr(user, "is_superuser", False):
        return True
    return Challenge.objects.filter(Challenge.organised_by(user)).exists()


def needs_second_factor(user: User | AnonymousUser) -> bool:
    """Whether ``user`` holds secrets and has no second factor yet: they must set one up
    before reaching an organiser page, the admin or the organiser API. The factor is asked
    first: the people these doors see hold secrets, and one who has a factor is let through
    by one query."""
    return not has_second_factor(user) and holds_secrets(user)


def setup_url(next_path: str = "") -> str:
    """The path of the set-up page, with where to go afterwards."""
    url = reverse(SETUP)
    return f"{url}?{urlencode({'next': next_path})}" if next_path else url


def setup_redirect(request: HttpRequest) -> HttpResponseRedirect:
    """To the set-up page, with a message saying why and ``?next=`` the page asked for, which
    the session keeps until a factor is set up (``factor_added``)."""
    wanted = request.get_full_path()
    messages.warning(request, f"{PAGE_MESSAGE} Then open {wanted} again.", fail_silently=True)
    request.session[NEXT_KEY] = wanted
    return HttpResponseRedirect(setup_url(wanted))


def factor_added(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    """Receiver of allauth.mfa's ``authenticator_added``: once an authenticator app or a
    security key is set up, the page the person was sent from is named again, where allauth
    goes on (its recovery codes), since allauth's set-up does not follow ``?next=``."""
    authenticator = kwargs.get("authenticator")
    if request is None or authenticator is None or authenticator.type not in SECOND_FACTORS:
        return
    wanted = request.session.pop(NEXT_KEY, None)
    if wanted:
        messages.success(
            request,
            f"Your second factor is set up: keep the recovery codes below, then go on to {wanted}.",
            fail_silently=True,
        )


def second_factor_required(view: Callable[..., HttpResponseBase]) -> Callable[..., Any]:
    """A page only organisers (or staff) reach: signed in (``login_required``), and sent to
    set up a second factor first when they hold secrets without one. Anyone else goes on to
    the view, which answers them as before (a 404 for a participant)."""

    @wraps(view)
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if needs_second_factor(request.user):
            return setup_redirect(request)
        return view(request, *args, **kwargs)

    return login_required(checked)


def api_refusal(user: User | AnonymousUser) -> str:
    """The organiser API's 403 message for ``user``; empty when they may go on."""
    if not needs_second_factor(user):
        return ""
    return (
        "Organisers must set up a second factor before using the organiser API: open "
        f"{settings.SITE_URL}{reverse(SETUP)} signed in, scan the code with an "
        "authenticator app and enter the code it shows."
    )
