"""Submission pages: upload, "my submissions", one submission's results, its status JSON,
and cancelling. Every lookup goes through ``selectors`` so another team's row is a 404."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_POST

from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import can_see_results
from leaderboard.submissions import analysis, selectors, services
from leaderboard.submissions.forms import SubmissionForm
from leaderboard.submissions.models import Submission
from leaderboard.teams.services import approved_teams, is_member, registrations

#: Milliseconds between two status polls on the "my submissions" page.
POLL_MS = 2000


def _phase(slug: str, phase: str) -> Phase:
    return get_object_or_404(
        Phase.objects.select_related("challenge"), challenge__slug=slug, slug=phase
    )


def _quotas(phase: Phase, teams: list) -> list[dict[str, object]]:
    rows = []
    for team in teams:
        today, total = services.quota_usage(team, phase)
        rows.append(
            {
                "team": team,
                "today": today,
                "total": total,
                "today_left": None if phase.daily_quota is None else phase.daily_quota - today,
                "total_left": None if phase.total_quota is None else phase.total_quota - total,
            }
        )
    return rows


@login_required
def submit(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    selected = _phase(slug, phase)
    teams = approved_teams(request.user, selected.challenge)
    if not teams.exists():
        context = {
            "phase": selected,
            "challenge": selected.challenge,
            "registrations": registrations(request.user, selected.challenge),
        }
        return render(request, "submissions/not_eligible.html", context)
    form = SubmissionForm(request.POST or None, request.FILES or None, phase=selected, teams=teams)
    rejected: dict[str, str] = {}
    if request.method == "POST" and form.is_valid():
        try:
            submission = services.submit(
                team=form.team(),
                phase=selected,
                user=request.user,
                files=form.files_by_condition(),
                method_name=form.cleaned_data["method_name"],
                method_description=form.cleaned_data["method_description"],
                url=form.cleaned_data["url"],
            )
        except services.SubmissionRejected as exc:
            rejected = exc.messages
        except (services.QuotaExceeded, services.SubmissionNotAllowed) as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Submission #{submission.pk} received; scoring it now.")
            return redirect("submissions:detail", submission.pk)
    context = {
        "phase": selected,
        "challenge": selected.challenge,
        "form": form,
        "rejected": rejected,
        # Messages that belong to no file field (e.g. "upload at least one file").
        "rejected_other": {
            k: v for k, v in rejected.items() if k not in {c.key for c in form.conditions}
        },
        "quotas": _quotas(selected, list(teams)),
    }
    return render(request, "submissions/submit.html", context)


@login_required
def mine(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    selected = _phase(slug, phase)
    context = {
        "phase": selected,
        "challenge": selected.challenge,
        "submissions": selectors.team_submissions(request.user, selected),
        "show_scores": can_see_results(selected, request.user),
        "conditions": list(selected.conditions.order_by("order", "key")),
        "final_statuses": selectors.FINAL_STATUSES,
        "poll_ms": POLL_MS,
    }
    return render(request, "submissions/mine.html", context)


@login_required
def detail(request: HttpRequest, pk: int) -> HttpResponse:
    submission = get_object_or_404(
        selectors.visible_submissions(request.user).prefetch_related(
            selectors.active_results(), "files__condition"
        ),
        pk=pk,
    )
    show_scores = can_see_results(submission.phase, request.user)
    results = []
    figures: dict[str, object] = {}
    if show_scores:
        for result in submission.active_results:
            positions = analysis.by_position(result)
            figures.update(analysis.result_figures(result, positions))
            tables = {
                **selectors.breakdown_tables(result),
                "errors": analysis.slot_errors(result),
                "positions": positions,
                "worst": analysis.worst_dialogues(result),
            }
            results.append((result, tables))
    others = (
        selectors.visible_submissions(request.user)
        .filter(team=submission.team, phase=submission.phase, status=Submission.Status.SCORED)
        .exclude(pk=submission.pk)
        .order_by("-created_at")
        if show_scores and results
        else Submission.objects.none()
    )
    context = {
        "figures": figures,
        "others": others,
        "submission": submission,
        "phase": submission.phase,
        "challenge": submission.phase.challenge,
        "show_scores": show_scores,
        "results": results,
        "final": selectors.is_final(submission),
        "can_cancel": submission.status == Submission.Status.QUEUED
        and is_member(submission.team, request.user),
        "poll_ms": POLL_MS,
    }
    return render(request, "submissions/detail.html", context)


@login_required
def status(request: HttpRequest, pk: int) -> JsonResponse:
    submission = get_object_or_404(selectors.visible_submissions(request.user), pk=pk)
    show_scores = can_see_results(submission.phase, request.user)
    response = JsonResponse(selectors.status_summary(submission, show_scores=show_scores))
    add_never_cache_headers(response)
    return response


@login_required
@require_POST
def cancel(request: HttpRequest, pk: int) -> HttpResponse:
    submission = selectors.own_submissions(request.user).filter(pk=pk).first()
    if submission is None:
        raise Http404
    try:
        services.cancel(submission, request.user)
    except services.SubmissionNotAllowed as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Submission #{submission.pk} cancelled; it does not count.")
    phase = submission.phase
    return redirect("submissions:mine", phase.challenge.slug, phase.slug)


@login_required
def compare(request: HttpRequest, pk: int) -> HttpResponse:
    """Two submissions of the same team and phase, condition by condition: paired tests and the
    dialogues one gets right and the other wrong. ``?with=<id>`` names the second one."""
    visible = selectors.visible_submissions(request.user).prefetch_related(
        selectors.active_results()
    )
    first = get_object_or_404(visible, pk=pk)
    try:
        other_pk = int(request.GET.get("with", ""))
    except ValueError:
        raise Http404 from None
    second = get_object_or_404(visible, pk=other_pk, team=first.team, phase=first.phase)
    phase = first.phase
    if not can_see_results(phase, request.user):
        raise Http404
    context = {
        "a": first,
        "b": second,
        "phase": phase,
        "challenge": phase.challenge,
        "conditions": analysis.compare(
            first.active_results, second.active_results, phase.challenge.scoring_settings()
        ),
        "limit": analysis.DIFFERING_DIALOGUES,
    }
    return render(request, "submissions/compare.html", context)
