"""Sign-up and profile; log in/out and password change/reset are Django's own auth views."""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from leaderboard.accounts.forms import SignUpForm
from leaderboard.teams.services import teams_of


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


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/profile.html", {"teams": teams_of(request.user)})
