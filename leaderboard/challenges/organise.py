"""Organiser pages beyond the admin: the dashboard of a challenge, approving registrations,
re-scoring a phase. Only the challenge's organisers reach them; anyone else gets a 404."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from leaderboard.challenges import dashboard
from leaderboard.challenges.models import Challenge
from leaderboard.submissions.services import rescore_all
from leaderboard.teams.models import Participation
from leaderboard.teams.services import set_participation_status


def _organised(request: HttpRequest, slug: str) -> Challenge:
    challenge = get_object_or_404(Challenge, slug=slug)
    if not challenge.is_organised_by(request.user):
        raise Http404
    return challenge


@login_required
def organise(request: HttpRequest, slug: str) -> HttpResponse:
    challenge = _organised(request, slug)
    context = {
        "challenge": challenge,
        "phases": dashboard.phases(challenge),
        "health": dashboard.queue_health(challenge),
        "per_day": dashboard.per_day(challenge),
        "pending": challenge.participations.filter(
            status=Participation.Status.PENDING
        ).select_related("team"),
    }
    return render(request, "challenges/organise.html", context)


@login_required
@require_POST
def decide(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Approve or reject a pending registration (``decision`` = approve | reject)."""
    challenge = _organised(request, slug)
    participation = get_object_or_404(challenge.participations, pk=pk)
    decision = request.POST.get("decision")
    if decision not in ("approve", "reject"):
        raise Http404
    status = (
        Participation.Status.APPROVED if decision == "approve" else Participation.Status.REJECTED
    )
    set_participation_status(participation, status)
    messages.success(request, f"{participation.team.name}: {status}.")
    return redirect("challenges:organise", challenge.slug)


@login_required
@require_POST
def rescore_phase(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    challenge = _organised(request, slug)
    selected = get_object_or_404(challenge.phases, slug=phase)
    ids = rescore_all(phase=selected)
    messages.success(request, f"{len(ids)} submission(s) of {selected.name} queued for re-scoring.")
    return redirect("challenges:organise", challenge.slug)
