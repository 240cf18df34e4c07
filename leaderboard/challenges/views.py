"""Challenge pages: the list, one challenge's detail (with its data section), registering a
team for it, and the files a participant starts from (``challenges.data``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from leaderboard.accounts.requests import AuthenticatedHttpRequest
from leaderboard.challenges import announcements, data, formats, wording
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.pages import PAGES
from leaderboard.errorpages import error_page
from leaderboard.ids import row_id
from leaderboard.teams import services as teams
from leaderboard.teams.models import Participation


def challenge_list(request: HttpRequest) -> HttpResponse:
    # the oldest first: a site's main challenge, created first, leads the page
    challenges = Challenge.objects.prefetch_related("phases").order_by("created", "pk")
    return render(request, "challenges/list.html", {"challenges": challenges})


def detail(request: HttpRequest, slug: str) -> HttpResponse:
    challenge = get_object_or_404(Challenge, slug=slug)
    phases = challenge.phases.prefetch_related("conditions").order_by("order", "opens_at")
    task = challenge.scoring_task()
    # the organisers' pages that have text: field -> Markdown
    pages = {f: getattr(challenge, f) for f, _ in PAGES if getattr(challenge, f).strip()}
    context = {
        "challenge": challenge,
        "task": task,
        "primary": task.metric(challenge.primary),
        "tiebreak": task.metric(challenge.tiebreak),
        "formats": formats.formats(challenge),
        "local_command": formats.local_command(challenge),
        "script_command": formats.local_command(challenge, "trackboard-score"),
        "settings": formats.settings(challenge),
        "reference_files": task.reference_files,
        "phases": [
            {
                "phase": phase,
                "quota": wording.quota_text(
                    phase.daily_quota, phase.total_quota, phase.allow_partial
                ),
                "links": wording.phase_links(phase, request.user.is_authenticated),
                "conditions": [c.label for c in phase.conditions.all()],
            }
            for phase in phases
        ],
        "public_run_phases": [phase for phase in phases if phase.public_run_chosen],
        "downloads": data.phase_data(challenge),
        "ways": _ways_in(request, list(phases)),
        "registration_rule": wording.registration_rule(challenge.registration),
        "registrations": [
            (team, status, wording.registration_state(status))
            for team, status in teams.registrations(request.user, challenge)
        ],
        "ranking_rule": wording.ranking_rule(
            task.metric(challenge.primary), task.metric(challenge.tiebreak)
        ),
        "confirmed": teams.address_confirmed(request.user),
        "organiser": challenge.is_organised_by(request.user),
        "announcements": list(announcements.of(challenge)),
        "pages": pages,
        "page_nav": wording.page_nav(pages),
    }
    return render(request, "challenges/detail.html", context)


def _ways_in(request: HttpRequest, phases: list[Phase]) -> formats.WaysIn | None:
    """The upload commands for the phase a participant most likely wants: the first open one,
    else the first one."""
    if not phases:
        return None
    phase = next((p for p in phases if p.state == "open"), phases[0])
    return formats.ways_in(phase, request.build_absolute_uri("/").rstrip("/"))


@login_required
@require_POST
def register(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    challenge = get_object_or_404(Challenge, slug=slug)
    team_id = request.POST.get("team", "")
    pk = row_id(team_id)
    team = teams.member_team(request.user, pk=pk) if pk is not None else None
    if team is None:
        raise Http404
    try:
        participation = teams.register(team=team, challenge=challenge, user=request.user)
    except teams.TeamError as exc:
        messages.error(request, str(exc))
        return redirect("challenges:detail", challenge.slug)
    if participation.status == Participation.Status.APPROVED:
        messages.success(request, f"{team.name} is registered for {challenge.title}.")
    elif participation.status == Participation.Status.PENDING:
        messages.info(request, f"{team.name} is registered; an organiser will approve it.")
    else:
        messages.error(request, f"The registration of {team.name} was declined.")
    return redirect("challenges:detail", challenge.slug)


#: the answer when a stored file cannot be read (storage down): try again shortly
_UNREADABLE = "The file cannot be read just now; please try again in a minute."


def sample(request: HttpRequest, slug: str, phase: str, condition: str) -> HttpResponse:
    """The sample submission of one condition: every dialogue and turn, states empty."""
    challenge = get_object_or_404(Challenge, slug=slug)
    found = data.condition_of(challenge, phase, condition)
    try:
        return data.sample_response(found)
    except OSError:
        return error_page(503, _UNREADABLE, **{"Retry-After": "60"})


def reference_file(
    request: HttpRequest, slug: str, phase: str, condition: str, name: str
) -> HttpResponseBase:
    """A public file of a condition's active reference (e.g. the MultiWOZ 2.2 schema)."""
    challenge = get_object_or_404(Challenge, slug=slug)
    found = data.reference_file(data.condition_of(challenge, phase, condition), name)
    try:
        return data.file_response(found.file, found.original_name)
    except OSError:
        return error_page(503, _UNREADABLE, **{"Retry-After": "60"})


def phase_file(request: HttpRequest, slug: str, phase: str, pk: int) -> HttpResponseBase:
    """A file the organisers published with a phase."""
    challenge = get_object_or_404(Challenge, slug=slug)
    found = data.phase_file(challenge, phase, pk)
    try:
        return data.file_response(found.file, found.original_name)
    except OSError:
        return error_page(503, _UNREADABLE, **{"Retry-After": "60"})
