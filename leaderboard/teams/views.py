"""Team pages: my teams, create, team page, join by code or link, leave, new invite code,
rename, who sees the members."""

from __future__ import annotations

from allauth.socialaccount.models import SocialAccount
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from leaderboard.accounts.requests import AuthenticatedHttpRequest
from leaderboard.teams import services, wording
from leaderboard.teams.forms import JoinForm, TeamForm
from leaderboard.teams.models import Membership, Participation, Team


@login_required
def mine(request: AuthenticatedHttpRequest) -> HttpResponse:
    teams = services.teams_of(request.user).prefetch_related("participations__challenge")
    return render(request, "teams/mine.html", {"teams": teams})


@login_required
def create(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = TeamForm(request.POST or None)
    confirmed = services.address_confirmed(request.user)
    if request.method == "POST" and form.is_valid():
        try:
            team = services.create_team(name=form.cleaned_data["name"], user=request.user)
        except services.TeamError as exc:
            form.add_error("name", str(exc))
        else:
            messages.success(request, f"{team.name} created.")
            return redirect("teams:detail", team.slug)
    return render(request, "teams/create.html", {"form": form, "confirmed": confirmed})


def detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A team's page. An anonymous team's page (its name, members and registrations) is its
    members' and its challenges' organisers' only: anyone else gets a 404, as for no team."""
    team = get_object_or_404(Team, slug=slug)
    member = services.is_member(team, request.user)
    if team.anonymous and not member and not services.organises_team(request.user, team):
        raise Http404
    # The members' names and the registrations still waiting (or declined) are the team's and
    # its organisers' business, unless the team lists its members; the approved ones are on
    # the boards anyway.
    insider = services.insider(team, request.user)
    shown = insider or team.list_members
    participations = team.participations.select_related("challenge")
    if not insider:
        participations = participations.filter(status=Participation.Status.APPROVED)
    owner = member and services.is_owner(team, request.user)
    context = {
        "team": team,
        "member": member,
        "owner": owner,
        "members_shown": shown,
        "member_count": wording.member_count(team.memberships.count()),
        "private_note": wording.private_note(member, team.list_members),
        "listing": wording.listing_switch(team.list_members),
        "display": wording.display_switch(team.anonymous, team.anonymous_label),
        "memberships": _memberships(team) if shown else [],
        "orcid_site": f"https://{settings.ORCID_DOMAIN}",
        "participations": participations,
        "rename_form": TeamForm(initial={"name": team.name}) if owner else None,
    }
    return render(request, "teams/detail.html", context)


def _memberships(team: Team) -> QuerySet[Membership]:
    """The team's memberships, each user with the ORCID iD they linked (``orcid_accounts``:
    none, or their ORCID sign-in), which the page shows beside their name."""
    orcid = SocialAccount.objects.filter(provider="orcid")
    return (
        team.memberships.select_related("user")
        .prefetch_related(Prefetch("user__socialaccount_set", orcid, to_attr="orcid_accounts"))
        .order_by("joined")
    )


@login_required
def join(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = JoinForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            team = services.join_team(invite_code=form.cleaned_data["code"], user=request.user)
        except services.TeamError as exc:
            form.add_error("code", str(exc))
        else:
            messages.success(request, f"You joined {team.name}.")
            return redirect("teams:detail", team.slug)
    return render(request, "teams/join.html", {"form": form})


@login_required
def join_link(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    team = get_object_or_404(Team, invite_code=code)
    if request.method == "POST":
        try:
            services.join_team(invite_code=code, user=request.user)
        except services.TeamError as exc:
            messages.error(request, str(exc))
            return redirect("teams:mine")
        messages.success(request, f"You joined {team.name}.")
        return redirect("teams:detail", team.slug)
    already = services.is_member(team, request.user)
    return render(request, "teams/join_link.html", {"team": team, "already": already})


@login_required
@require_POST
def leave(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    team = services.member_team(request.user, slug=slug)
    if team is None:
        raise Http404
    try:
        services.leave_team(team=team, user=request.user)
    except services.TeamError as exc:
        messages.error(request, str(exc))
        return redirect("teams:detail", team.slug)
    messages.success(request, f"You left {team.name}.")
    return redirect("teams:mine")


@login_required
@require_POST
def regenerate(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    team = services.member_team(request.user, slug=slug)
    if team is None:
        raise Http404
    try:
        services.regenerate_invite_code(team=team, user=request.user)
    except services.TeamError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "New invite code created; the old code and link no longer work.")
    return redirect("teams:detail", team.slug)


@login_required
@require_POST
def anonymous(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """Owner action: show the team as "Anonymous team" on public boards (``anonymous=1``)."""
    team = services.member_team(request.user, slug=slug)
    if team is None:
        raise Http404
    wanted = request.POST.get("anonymous") == "1"
    try:
        services.set_anonymous(team=team, user=request.user, anonymous=wanted)
    except services.TeamError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request, "Your team is now anonymous on public boards." if wanted else
            "Your team's name is shown on public boards again."
        )  # fmt: skip
    return redirect("teams:detail", team.slug)


@login_required
@require_POST
def rename(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """Owner action: a new name for the team (its page's address stays)."""
    team = services.member_team(request.user, slug=slug)
    if team is None:
        raise Http404
    form = TeamForm(request.POST)
    if not form.is_valid():
        messages.error(
            request, " ".join(map(str, form.errors.get("name", ["A team needs a name."])))
        )
        return redirect("teams:detail", team.slug)
    try:
        services.rename_team(team=team, user=request.user, name=form.cleaned_data["name"])
    except services.TeamError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"The team is now called {team.name}.")
    return redirect("teams:detail", team.slug)


@login_required
@require_POST
def list_members(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """Owner action: list the members' names on the team page to everyone (``listed=1``), or
    to the members and the organisers only."""
    team = services.member_team(request.user, slug=slug)
    if team is None:
        raise Http404
    wanted = request.POST.get("listed") == "1"
    try:
        services.set_list_members(team=team, user=request.user, listed=wanted)
    except services.TeamError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request, "The team page now lists your members to everyone." if wanted else
            "The team page now shows your members to the team and the organisers only."
        )  # fmt: skip
    return redirect("teams:detail", team.slug)
