"""The profile (address, mail choice, API tokens, sign-in providers), the download of one's data
and the deletion of the account. Sign-up, the confirmation of an address, log-in and log-out,
the password's reset and change, and linking identity providers are django-allauth's
(``accounts.adapter``, mounted at ``/accounts/``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_POST

from leaderboard.accounts import services as accounts
from leaderboard.accounts.deletion import delete_account, plan, refusal
from leaderboard.accounts.export import filename, personal_data
from leaderboard.accounts.forms import DeleteAccountForm, MailForm, TokenForm
from leaderboard.accounts.models import (
    MailPreference,
    wants_announcement_mail,
    wants_submission_mail,
)
from leaderboard.accounts.requests import AuthenticatedHttpRequest
from leaderboard.api import services as tokens
from leaderboard.teams.services import address_verified, teams_of
from leaderboard.throttles import TOKEN_THROTTLES


def _profile(
    request: AuthenticatedHttpRequest,
    form: TokenForm,
    new_key: str = "",
    status: int = 200,
) -> HttpResponse:
    context = {
        "confirmed": address_verified(request.user),
        "teams": teams_of(request.user),
        "tokens": tokens.tokens_of(request.user),
        "token_form": form,
        "new_key": new_key,
        "mail_form": MailForm(
            initial={
                "submission_mail": wants_submission_mail(request.user),
                "announcement_mail": wants_announcement_mail(request.user),
            }
        ),
    }
    response = render(request, "accounts/profile.html", context, status=status)
    # The page may show a new key once: never let a cache keep it.
    add_never_cache_headers(response)
    return response


@login_required
def profile(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _profile(request, TokenForm(user=request.user))


@login_required
@require_POST
def create_token(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Make an API token and show its key on this response only (it is stored hashed)."""
    # The same DRF throttles as the API's token-sensitive endpoints, per user and per IP.
    for throttle in (cls() for cls in TOKEN_THROTTLES):
        if not throttle.allow_request(request, None):
            wait = throttle.wait() or 1
            messages.error(
                request, f"Too many new tokens; try again in {int(wait + 0.999)} seconds."
            )
            response = _profile(request, TokenForm(user=request.user), status=429)
            response["Retry-After"] = str(int(wait + 0.999))
            return response
    form = TokenForm(request.POST, user=request.user)
    if not form.is_valid():
        return _profile(request, form, status=400)
    data = form.cleaned_data
    try:
        _, key = tokens.create_token(
            request.user, data["name"], scope=data["scope"], days=data["days"]
        )
    except tokens.TokenError as exc:
        form.add_error(None, str(exc))
        return _profile(request, form, status=400)
    return _profile(request, TokenForm(user=request.user), new_key=key)


@login_required
@require_POST
def renew_token(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Give a token (expired or not) the default lifetime from now; its key is unchanged."""
    token = tokens.renew_token(request.user, pk)
    if token is None:
        messages.error(request, "No such token.")
    else:
        day = timezone.localdate(token.expires_at).isoformat()
        messages.success(request, f"Token {token.prefix}… renewed; it now expires on {day}.")
    return redirect(reverse("accounts:profile") + "#api-tokens")


@login_required
@require_POST
def revoke_token(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    if tokens.revoke_token(request.user, pk):
        messages.success(request, "Token revoked; programs using it can no longer sign in.")
    else:
        messages.error(request, "No such token.")
    return redirect("accounts:profile")


@login_required
@require_POST
def mail(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Turn the mail about the user's teams' submissions, and the challenges' announcements,
    on or off."""
    form = MailForm(request.POST)
    valid = form.is_valid()
    wanted = valid and form.cleaned_data["submission_mail"]
    news = valid and form.cleaned_data["announcement_mail"]
    MailPreference.objects.update_or_create(
        user=request.user, defaults={"submission_mail": wanted, "announcement_mail": news}
    )
    messages.success(
        request,
        (
            "You will get an e-mail when your team's submissions are scored or fail."
            if wanted
            else "You will get no more e-mail about your team's submissions."
        )
        + (
            " The announcements organisers mail will reach you."
            if news
            else " You will get no announcement mail (they stay on the challenges' pages)."
        ),
    )
    return redirect("accounts:profile")


@login_required
@require_POST
def export(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The download of everything the site holds about the user (``accounts.export``). POST,
    as the button of the profile page: a link followed from elsewhere downloads nothing."""
    response = JsonResponse(personal_data(request.user), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="{filename(request.user)}"'
    add_never_cache_headers(response)
    return response


@login_required
def delete(request: AuthenticatedHttpRequest) -> HttpResponse:
    """What deleting the account does (to each team of the user's), and, with the password
    asked again and a new owner named for each team they are the last owner of, the deletion
    (``accounts.deletion``); then the user is logged out."""
    teams = plan(request.user)
    form = DeleteAccountForm(
        request.POST if request.method == "POST" else None,
        request=request,
        handed_over=teams.handed_over,
    )
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                delete_account(request.user, heirs=form.heirs())
            except accounts.AccountError as exc:
                form.add_error(None, str(exc))
            else:
                logout(request)
                messages.success(
                    request,
                    "Your account is deleted: your personal data is erased, and your teams' "
                    "runs stay with the teams.",
                )
                return redirect("challenges:list")
        status = 400
    context = {"form": form, "plan": teams, "refused": refusal(request.user)}
    response = render(request, "accounts/delete.html", context, status=status)
    add_never_cache_headers(response)
    return response
