"""Sign-up and the confirmation of an address, profile (address, mail choice, API tokens), and
the password reset (Django's views, with the mail sent by a worker, limits per address and per
account, and the log-in lock lifted by a completed reset); log in/out and password change are
Django's own auth views."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from axes.utils import reset as reset_login_failures
from django.contrib import messages
from django.contrib.auth import get_user_model, login, logout
from django.contrib.auth import views as auth
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.encoding import force_str
from django.utils.http import url_has_allowed_host_and_scheme, urlsafe_base64_decode
from django.views.decorators.http import require_POST

from leaderboard.accounts import services as accounts
from leaderboard.accounts.deletion import delete_account, plan, refusal
from leaderboard.accounts.export import filename, personal_data
from leaderboard.accounts.forms import (
    AddressForm,
    DeleteAccountForm,
    MailForm,
    ResetForm,
    SignUpForm,
    TokenForm,
)
from leaderboard.accounts.models import (
    MailPreference,
    wants_announcement_mail,
    wants_submission_mail,
)
from leaderboard.accounts.tokens import confirmation_tokens
from leaderboard.api import services as tokens
from leaderboard.security import login_username
from leaderboard.teams.services import address_confirmed, teams_of
from leaderboard.throttles import (
    TOKEN_THROTTLES,
    ConfirmUserThrottle,
    ResetAccountThrottle,
    ResetIPThrottle,
    SignupIPThrottle,
    wait_seconds,
)


def _minutes(seconds: int) -> str:
    minutes = max(1, (seconds + 59) // 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def _throttled(response: HttpResponse, seconds: int) -> HttpResponse:
    response.status_code = 429
    response["Retry-After"] = str(seconds)
    return response


def _next_url(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return None


def signup(request: HttpRequest) -> HttpResponse:
    """A new account, signed in at once; its address is confirmed by the link mailed to it
    (until then it cannot take part). Sign-up forms are limited per address."""
    if request.user.is_authenticated:
        return redirect("accounts:profile")
    form = SignUpForm(request.POST or None)
    context = {"form": form, "next": _next_url(request)}
    if request.method == "POST":
        limit = SignupIPThrottle()
        if not limit.allow_request(request, None):
            wait = wait_seconds(limit)
            form.add_error(
                None,
                "Too many sign-ups from your address; try again in "
                f"{_minutes(wait)}. Nothing was created.",
            )
            return _throttled(render(request, "accounts/signup.html", context), wait)
        if form.is_valid():
            try:
                user = form.save()
            except IntegrityError:  # the address index, for a race the form's check lost
                form.add_error("email", accounts.TAKEN)
            else:
                accounts.request_confirmation(user)
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                messages.success(request, f"Welcome, {user.get_username()}.")
                target = _next_url(request)
                response = redirect("accounts:confirm-sent")
                if target:
                    response["Location"] += "?" + urlencode({"next": target})
                return response
    return render(request, "accounts/signup.html", context)


@login_required
def confirm_sent(request: HttpRequest) -> HttpResponse:
    """After sign-up (or a new link): where the link went, what waits on it, how to resend."""
    if address_confirmed(request.user):
        return redirect(_next_url(request) or "teams:mine")
    return render(request, "accounts/confirm_sent.html", {"next": _next_url(request)})


def _user_of(uidb64: str) -> Any:
    try:
        pk = force_str(urlsafe_base64_decode(uidb64))
        return get_user_model()._default_manager.filter(pk=int(pk)).first()
    except (ValueError, OverflowError):
        return None


def confirm(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """The link of the mail: a button that confirms (GET changes nothing, so a mail scanner
    opening links confirms nothing), then the confirmation."""
    user = _user_of(uidb64)
    valid = user is not None and user.is_active and confirmation_tokens.check_token(user, token)
    if request.method == "POST" and valid:
        accounts.confirm(user)
        messages.success(request, f"Your address {user.email} is confirmed; you can take part now.")
        if request.user.is_authenticated and request.user.pk == user.pk:
            return redirect("teams:mine")
        return redirect("login")
    context = {
        "valid": valid,
        "confirmed_user": user,
        "already": user is not None and not valid and accounts.is_confirmed(user),
    }
    return render(request, "accounts/confirm.html", context, status=200 if valid else 400)


@login_required
@require_POST
def resend_confirmation(request: HttpRequest) -> HttpResponse:
    """Mail the confirmation link again (limited per user)."""
    user = request.user
    if accounts.is_confirmed(user):
        messages.info(request, "Your address is already confirmed.")
        return redirect(_next_url(request) or "accounts:profile")
    if not user.email:
        messages.error(request, "Your account has no e-mail address yet: add one below.")
        return redirect(reverse("accounts:profile") + "#email")
    limit = ConfirmUserThrottle()
    if not limit.allow_request(request, None):
        wait = wait_seconds(limit)
        messages.error(
            request,
            f"We have sent the link several times already; try again in {_minutes(wait)}, and "
            "look in your spam folder meanwhile.",
        )
        return _throttled(render(request, "accounts/confirm_sent.html", {}), wait)
    accounts.request_confirmation(user)
    messages.success(request, f"A new link is on its way to {user.email}.")
    return redirect(_next_url(request) or "accounts:confirm-sent")


@login_required
@require_POST
def change_address(request: HttpRequest) -> HttpResponse:
    """A new address for the account (the password asked again), unconfirmed until the link
    mailed to it is opened."""
    form = AddressForm(request.POST, request=request)
    if not form.is_valid():
        return _profile(request, TokenForm(user=request.user), address_form=form, status=400)
    limit = ConfirmUserThrottle()
    if not limit.allow_request(request, None):
        wait = wait_seconds(limit)
        form.add_error(None, f"Too many confirmation mails; try again in {_minutes(wait)}.")
        return _throttled(_profile(request, TokenForm(user=request.user), address_form=form), wait)
    try:
        accounts.change_address(request.user, form.cleaned_data["email"])
    except accounts.AccountError as exc:
        form.add_error("email", str(exc))
        return _profile(request, TokenForm(user=request.user), address_form=form, status=400)
    messages.success(
        request, f"Your address is now {request.user.email}; open the link we sent there."
    )
    return redirect("accounts:confirm-sent")


class ResetView(auth.PasswordResetView):
    """The reset form: the same answer, after the same work, for every address (a worker looks
    it up and mails it), limited per client address and per address asked for."""

    form_class = ResetForm

    def form_valid(self, form: ResetForm) -> HttpResponse:
        for limit in (ResetIPThrottle(), ResetAccountThrottle(form.cleaned_data["email"])):
            if not limit.allow_request(self.request, None):
                wait = wait_seconds(limit)
                form.add_error(
                    None,
                    "Too many password resets were asked for from your address or for this "
                    f"e-mail address; try again in {_minutes(wait)}. If a link was sent, the "
                    "latest one works.",
                )
                return _throttled(self.form_invalid(form), wait)
        return super().form_valid(form)


class ResetConfirmView(auth.PasswordResetConfirmView):
    """Django's new-password form; once the password is set, the account's failed log-ins are
    forgotten, so a lock they put on it is lifted from every address."""

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        username = login_username(None, {"username": form.user.get_username()})
        if username:
            reset_login_failures(username=username)
        return response


def _profile(
    request: HttpRequest,
    form: TokenForm,
    new_key: str = "",
    status: int = 200,
    address_form: AddressForm | None = None,
) -> HttpResponse:
    context = {
        "confirmed": accounts.is_confirmed(request.user),
        "address_form": address_form or AddressForm(request=request),
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
def profile(request: HttpRequest) -> HttpResponse:
    return _profile(request, TokenForm(user=request.user))


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
def renew_token(request: HttpRequest, pk: int) -> HttpResponse:
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
def revoke_token(request: HttpRequest, pk: int) -> HttpResponse:
    if tokens.revoke_token(request.user, pk):
        messages.success(request, "Token revoked; programs using it can no longer sign in.")
    else:
        messages.error(request, "No such token.")
    return redirect("accounts:profile")


@login_required
@require_POST
def mail(request: HttpRequest) -> HttpResponse:
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
def export(request: HttpRequest) -> HttpResponse:
    """The download of everything the site holds about the user (``accounts.export``). POST,
    as the button of the profile page: a link followed from elsewhere downloads nothing."""
    response = JsonResponse(personal_data(request.user), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="{filename(request.user)}"'
    add_never_cache_headers(response)
    return response


@login_required
def delete(request: HttpRequest) -> HttpResponse:
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
