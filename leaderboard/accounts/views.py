"""Sign-up, profile (mail choice, API tokens); log in/out and password change/reset are Django's own
auth views."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from leaderboard.accounts.forms import MailForm, SignUpForm, TokenForm
from leaderboard.accounts.models import MailPreference, wants_submission_mail
from leaderboard.api import services as tokens
from leaderboard.teams.services import teams_of
from leaderboard.throttles import TOKEN_THROTTLES


def _next_url(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return None


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("accounts:profile")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_next_url(request) or "teams:mine")
    return render(request, "accounts/signup.html", {"form": form, "next": _next_url(request)})


def _profile(
    request: HttpRequest, form: TokenForm, new_key: str = "", status: int = 200
) -> HttpResponse:
    context = {
        "teams": teams_of(request.user),
        "tokens": tokens.tokens_of(request.user),
        "token_form": form,
        "new_key": new_key,
        "mail_form": MailForm(initial={"submission_mail": wants_submission_mail(request.user)}),
    }
    response = render(request, "accounts/profile.html", context, status=status)
    # The page may show a new key once: never let a cache keep it.
    add_never_cache_headers(response)
    return response


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    return _profile(request, TokenForm())


@login_required
@require_POST
def create_token(request: HttpRequest) -> HttpResponse:
    """Make an API token and show its key on this response only (it is stored hashed)."""
    # The same DRF throttles as the API's token-sensitive endpoints, per user and per IP.
    for throttle in (cls() for cls in TOKEN_THROTTLES):
        if not throttle.allow_request(request, None):
            wait = throttle.wait() or 1
            messages.error(
                request, f"Too many new tokens; try again in {int(wait + 0.999)} seconds."
            )
            response = _profile(request, TokenForm(), status=429)
            response["Retry-After"] = str(int(wait + 0.999))
            return response
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _profile(request, form, status=400)
    try:
        _, key = tokens.create_token(request.user, form.cleaned_data["name"])
    except tokens.TokenError as exc:
        form.add_error(None, str(exc))
        return _profile(request, form, status=400)
    return _profile(request, TokenForm(), new_key=key)


@login_required
@require_POST
def revoke_token(request: HttpRequest, pk: int) -> HttpResponse:
    if tokens.revoke_token(request.user, pk):
        messages.success(request, "Token revoked; programs using it can no longer sign in.")
    else:
        messages.error(request, "No such token.")
    return redirect("accounts:profile")


@login_required
@require_POST
def mail(request: HttpRequest) -> HttpResponse:
    """Turn the mail about the user's teams' submissions on or off."""
    form = MailForm(request.POST)
    wanted = form.is_valid() and form.cleaned_data["submission_mail"]
    MailPreference.objects.update_or_create(user=request.user, defaults={"submission_mail": wanted})
    messages.success(
        request,
        "You will get an e-mail when your team's submissions are scored or fail."
        if wanted
        else "You will get no more e-mail about your team's submissions.",
    )
    return redirect("accounts:profile")
