"""Organiser pages beyond the admin: the dashboard of a challenge, approving registrations,
posting and deleting announcements, re-scoring a phase, re-queueing its failed submissions,
reviewing a reference version's impact before activating it, downloading submitted files,
managing co-organisers. Only the challenge's organisers reach them (and, for a reference
version's review, where the admin sends them, superusers), once they have a second factor
(``challenges.factors``: sent to set one up first); anyone else gets a 404."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from leaderboard.challenges import announcements, roles
from leaderboard.challenges.announcements import AnnouncementError
from leaderboard.challenges.factors import second_factor_required
from leaderboard.challenges.models import Challenge, Reference
from leaderboard.challenges.services import activate_reference
from leaderboard.operations.heartbeat import (
    alive_workers,
    last_heartbeat,
    scheduler_silence,
    silence_words,
)
from leaderboard.organisers import dashboard, wording
from leaderboard.organisers.forms import AnnouncementForm
from leaderboard.submissions import downloads
from leaderboard.submissions.impact import reference_impact
from leaderboard.submissions.models import Submission
from leaderboard.submissions.services import rescore, rescore_all
from leaderboard.teams import announcement_mail
from leaderboard.teams.models import Participation
from leaderboard.teams.services import TeamError, set_participation_status


def _organised(request: HttpRequest, slug: str, *, superuser: bool = False) -> Challenge:
    challenge = get_object_or_404(Challenge, slug=slug)
    allowed = superuser and request.user.is_superuser
    if not (allowed or challenge.is_organised_by(request.user)):
        raise Http404
    return challenge


def _scheduler() -> str:
    """Empty while the scheduler runs; else what the dashboard says of it."""
    stopped, silent = scheduler_silence()
    return silence_words(silent) if stopped else ""


@second_factor_required
def organise(request: HttpRequest, slug: str) -> HttpResponse:
    return _dashboard(request, _organised(request, slug))


def _dashboard(
    request: HttpRequest,
    challenge: Challenge,
    *,
    form: AnnouncementForm | None = None,
    status: int = 200,
) -> HttpResponse:
    health = dashboard.queue_health(challenge)
    context = {
        "challenge": challenge,
        "phases": [
            {
                **item,
                "summary": wording.phase_summary(item["phase"]),
                "statuses_text": wording.statuses_text(item["statuses"]),
                "reveal_label": wording.reveal_label(item["phase"].revealed),
            }
            for item in dashboard.phases(challenge)
        ],
        "health": health,
        "oldest": wording.oldest_queued(health.oldest_queued_age),
        "refused": wording.refused_text(health.refused),
        "per_day": dashboard.per_day(challenge),
        "pending": challenge.participations.filter(
            status=Participation.Status.PENDING
        ).select_related("team"),
        "workers": wording.workers_text(len(alive_workers()), last_heartbeat()),
        "scheduler": wording.scheduler_text(_scheduler()),
        "audit": dashboard.audit_rows(challenge),
        "announcement_form": form or AnnouncementForm(),
        "announcements": announcements.of(challenge),
        "recipients": announcement_mail.recipients(challenge).count(),
    }
    return render(request, "organisers/organise.html", context, status=status)


@second_factor_required
@require_POST
def announce(request: HttpRequest, slug: str) -> HttpResponse:
    """Post an announcement (title, Markdown text, whether to mail it to every registered
    team); a form with errors is shown again on the dashboard, as it was typed."""
    challenge = _organised(request, slug)
    form = AnnouncementForm(request.POST)
    if form.is_valid():
        try:
            posted = announcements.post(
                challenge,
                title=form.cleaned_data["title"],
                body=form.cleaned_data["body"],
                author=request.user,
                mail=form.cleaned_data["mail"],
            )
        except AnnouncementError as exc:
            form.add_error(None, str(exc))
        else:
            mailed = (
                " It is being mailed to the members of every registered team."
                if posted.mailed
                else ""
            )
            messages.success(request, f"Posted {posted.title!r} on the challenge page.{mailed}")
            return redirect("challenges:organise", challenge.slug)
    return _dashboard(request, challenge, form=form, status=400)


@second_factor_required
@require_POST
def delete_announcement(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Delete a mistaken announcement (mail already sent cannot be taken back)."""
    challenge = _organised(request, slug)
    found = get_object_or_404(announcements.of(challenge), pk=pk)
    announcements.delete(found, actor=request.user)
    messages.success(request, f"Deleted the announcement {found.title!r}.")
    return redirect("challenges:organise", challenge.slug)


@second_factor_required
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
    try:
        set_participation_status(participation, status, actor=request.user)
    except TeamError as exc:
        messages.error(request, f"{participation.team.name}: {exc}")
    else:
        messages.success(request, f"{participation.team.name}: {status}.")
    return redirect("challenges:organise", challenge.slug)


@second_factor_required
@require_POST
def rescore_phase(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    challenge = _organised(request, slug)
    selected = get_object_or_404(challenge.phases, slug=phase)
    if request.POST.get("failed") == "1":
        failed = selected.submissions.filter(status=Submission.Status.FAILED)
        n = sum(rescore(s, include_failed=True, actor=request.user) for s in failed)
        messages.success(
            request,
            f"{n} failed submission(s) of {selected.name} queued for scoring again; they "
            "count against no quota.",
        )
    else:
        ids = rescore_all(phase=selected, actor=request.user)
        messages.success(
            request, f"{len(ids)} submission(s) of {selected.name} queued for re-scoring."
        )
    return redirect("challenges:organise", challenge.slug)


@second_factor_required
def review_reference(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A reference version's impact (GET), and its activation once confirmed (POST): every
    scored and failed submission of its condition is queued for scoring against it."""
    challenge = _organised(request, slug, superuser=True)
    reference = get_object_or_404(
        Reference.objects.select_related("condition__phase__challenge"),
        pk=pk,
        condition__phase__challenge=challenge,
    )
    condition = reference.condition
    if request.method == "POST":
        if reference.active:
            messages.info(request, f"{condition.label}: that version is already the active one.")
            return redirect("challenges:organise", challenge.slug)
        previous = condition.active_reference()
        try:
            consequences = reference_impact(reference).consequences
        except OSError:
            consequences = ["a stored file could not be read to check what it would do"]
        if consequences and request.POST.get("confirm") != "yes":
            messages.error(
                request,
                f"Nothing was activated: {'; '.join(consequences)}. Tick the box that says "
                "so to activate it anyway.",
            )
            return redirect("challenges:review_reference", challenge.slug, reference.pk)
        activate_reference(reference, actor=request.user)
        ids = rescore_all(condition=condition, include_failed=True, actor=request.user)
        kept = (
            f" The previous version {previous.sha256[:12]} is kept: activate it again below "
            "to go back."
            if previous
            else ""
        )
        messages.success(
            request,
            f"{condition.phase.name} / {condition.label}: version {reference.sha256[:12]} is "
            f"now active and {len(ids)} submission(s) are queued for scoring against it.{kept}",
        )
        return redirect("challenges:organise", challenge.slug)
    try:
        impact = reference_impact(reference)
    except OSError:
        messages.error(request, "A stored file could not be read: nothing was changed.")
        return redirect("challenges:organise", challenge.slug)
    context = {
        "challenge": challenge,
        "reference": reference,
        "impact": impact,
        "state": wording.reference_state(reference.active),
        "changes": [
            {
                "change": c,
                "css": "fails" if c.failure else "",
                "outcome": wording.outcome(c.outcome, c.failure),
                "now": wording.two_decimals(c.now),
                "after": wording.two_decimals(c.after),
            }
            for c in impact.changes
        ],
        "dialogues": wording.dialogues_changed("removed", impact.removed)
        + wording.dialogues_changed("added", impact.added),
    }
    return render(request, "organisers/reference_review.html", context)


@second_factor_required
def submission_files(request: HttpRequest, slug: str, pk: int) -> StreamingHttpResponse:
    """One submission's prediction files as a zip, streamed; the download is logged."""
    challenge = _organised(request, slug)
    rows = Submission.objects.filter(phase__challenge=challenge).select_related("team")
    submission = get_object_or_404(rows, pk=pk)
    return downloads.zip_response(
        request, [submission], f"{challenge.slug}-submission-{submission.pk}.zip"
    )


@second_factor_required
def phase_files(request: HttpRequest, slug: str, phase: str) -> StreamingHttpResponse:
    """Every submission's files of a phase as one streamed zip; the download is logged."""
    challenge = _organised(request, slug)
    selected = get_object_or_404(challenge.phases, slug=phase)
    submissions = selected.submissions.select_related("team").order_by("pk")
    return downloads.zip_response(
        request, submissions, f"{challenge.slug}-{selected.slug}-files.zip", phase=selected
    )


def _competing_team(challenge: Challenge, user: User) -> str | None:
    """The name of a team of ``user`` registered for ``challenge`` (waiting or approved), if
    any: one of its members would see the hidden results of the challenge it competes in."""
    found = (
        Participation.objects.filter(challenge=challenge, team__memberships__user=user)
        .exclude(status=Participation.Status.REJECTED)
        .values_list("team__name", flat=True)
        .first()
    )
    return None if found is None else str(found)


@second_factor_required
def co_organisers(request: HttpRequest, slug: str) -> HttpResponse:
    """The challenge's organisers (GET); add one by an existing account's username or address,
    or remove one (POST ``add`` / ``remove``). Each is staff and in the "Organisers" group
    while they organise a challenge (``roles.grant``); the last organiser cannot leave."""
    challenge = _organised(request, slug)
    if request.method == "POST":
        User = get_user_model()
        if "add" in request.POST:
            name = request.POST.get("add", "").strip()
            user = (
                User.objects.filter(Q(username=name) | Q(email__iexact=name)).first()
                if name
                else None
            )
            if user is None:
                messages.error(
                    request,
                    "No account has that username or address: they sign up first, then you "
                    "add them here.",
                )
            elif challenge.is_organised_by(user):
                messages.info(request, f"{user.get_username()} already organises it.")
            elif (competing := _competing_team(challenge, user)) is not None:
                messages.error(
                    request,
                    f"{user.get_username()} is in the team {competing}, registered for "
                    f"{challenge.title}: an organiser sees every hidden result, so they leave "
                    "the team (or the team withdraws) before they can organise it.",
                )
            else:
                with transaction.atomic():
                    roles.grant(challenge, user, actor=request.user)
                messages.success(
                    request,
                    f"{user.get_username()} now organises {challenge.title}: the dashboard, "
                    "and the admin for this challenge.",
                )
        elif "remove" in request.POST:
            user = challenge.organisers.filter(pk=request.POST.get("remove", "")).first()
            if user is None:
                raise Http404
            if challenge.organisers.count() == 1:
                messages.error(request, "A challenge keeps at least one organiser.")
            else:
                with transaction.atomic():
                    roles.revoke(challenge, user, actor=request.user)
                messages.success(request, f"{user.get_username()} no longer organises it.")
                if user == request.user:
                    return redirect("challenges:detail", challenge.slug)
        return redirect("challenges:co_organisers", challenge.slug)
    context = {"challenge": challenge, "organisers": challenge.organisers.order_by("username")}
    return render(request, "organisers/co_organisers.html", context)
