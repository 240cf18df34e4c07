"""Submission pages: upload, "my submissions", one submission's results, its status JSON,
and cancelling. Every lookup goes through ``selectors`` so another team's row is a 404."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.html import format_html_join
from django.views.decorators.http import require_POST

from leaderboard import numbers
from leaderboard.accounts.requests import AuthenticatedHttpRequest
from leaderboard.addresses import client_address
from leaderboard.challenges import formats
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.templatetags.times import when
from leaderboard.challenges.visibility import access, phase_or_404
from leaderboard.ids import row_id
from leaderboard.rankings import history
from leaderboard.rankings.board import Column, cell, columns
from leaderboard.submissions import analysis, selectors, services, wording
from leaderboard.submissions.forms import MethodForm, SubmissionForm, file_field_name
from leaderboard.submissions.models import Result, Submission
from leaderboard.submissions.services.withdrawal import of_submission
from leaderboard.teams.models import Team
from leaderboard.teams.services import (
    address_confirmed,
    approved_teams,
    is_member,
    registrations,
)
from scoring import Task

#: Milliseconds between two status polls on the "my submissions" page.
POLL_MS = 2000


def _quotas(phase: Phase, teams: list[Team]) -> list[dict[str, Any]]:
    """Each team's use of the quotas, whether it has any submission left, and (when only the
    daily quota is used up) when the next one is allowed."""
    rows = []
    for team in teams:
        today, total = services.quota_usage(team, phase)
        today_left = None if phase.daily_quota is None else max(0, phase.daily_quota - today)
        total_left = None if phase.total_quota is None else max(0, phase.total_quota - total)
        rows.append(
            {
                "team": team,
                "today": today,
                "total": total,
                "today_left": today_left,
                "total_left": total_left,
                "used_up": today_left == 0 or total_left == 0,
                "next_at": services.quota_resets_at()
                if today_left == 0 and total_left != 0
                else None,
            }
        )
    return rows


@login_required
def submit(request: AuthenticatedHttpRequest, slug: str, phase: str) -> HttpResponse:
    selected = phase_or_404(slug, phase)
    teams = approved_teams(request.user, selected.challenge)
    confirmed = address_confirmed(request.user)
    if not teams.exists() or not confirmed:
        context = {
            "phase": selected,
            "challenge": selected.challenge,
            "registrations": registrations(request.user, selected.challenge),
            "confirmed": confirmed,
        }
        return render(request, "submissions/not_eligible.html", context)
    form = SubmissionForm(request.POST or None, request.FILES or None, phase=selected, teams=teams)
    rejected: dict[str, str] = {}
    verdicts: list[dict[str, str]] = []
    retry_after: int | None = None
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
                facts=form.given_facts(),
                client_address=client_address(request),
            )
        except services.SubmissionRejected as exc:
            rejected = exc.messages
            verdicts = _verdicts(form, exc)
        except services.TooManyRejected as exc:  # the team's or the address's refusals
            form.add_error(None, str(exc))
            retry_after = exc.retry_after
        except services.FactsRefused as exc:  # the declarations changed since ``clean``
            form.add_error(None, str(exc))
        except (services.QuotaExceeded, services.SubmissionNotAllowed) as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                f"Submission #{submission.pk} received; its files are being checked and scored. "
                "If the scorer refuses a file, the upload does not count against your quota.",
            )
            return redirect("submissions:detail", submission.pk)
    quotas = _quotas(selected, list(teams))
    used_up = all(q["used_up"] for q in quotas)
    if used_up:
        # the server refuses an upload anyway; the form says so before any file is chosen
        form.close()
    refused = sum(1 for v in verdicts if v["kind"] != "unchecked")
    unchecked = len(verdicts) - refused
    daily, total = selected.daily_quota, selected.total_quota
    context = {
        "phase": selected,
        "challenge": selected.challenge,
        "form": form,
        "can_submit": selected.state == "open" and not used_up,
        "rejected": rejected,
        # Messages that belong to no file field (e.g. "upload at least one file").
        "rejected_other": {
            k: v for k, v in rejected.items() if k not in {c.key for c in form.conditions}
        },
        "formats": format_html_join(
            ", ", "<code>{}</code>", ((f,) for f in selected.challenge.scoring_task().formats)
        ),
        "files": _file_rows(form, verdicts, rejected),
        "files_legend": "Prediction files, one per condition"
        + (" (you may leave some out)" if selected.allow_partial else ""),
        "verdicts": verdicts,
        "refusal_summary": wording.refusal_summary(refused, unchecked, len(verdicts)),
        "files_to_choose": wording.files_to_choose(refused, unchecked),
        "quotas": [wording.quota_line(q, daily, total) for q in quotas],
        "used_up": [
            wording.used_up_line(q, selected.name, daily, total, when(q["next_at"])) for q in quotas
        ]
        if used_up
        else [],
        "ways": formats.ways_in(selected, request.build_absolute_uri("/").rstrip("/")),
    }
    if retry_after is None:
        return render(request, "submissions/submit.html", context)
    response = render(request, "submissions/submit.html", context, status=429)
    response["Retry-After"] = str(retry_after)
    return response


#: What each kind of refusal (``services.SubmissionRejected.kinds``) means, as the page says it.
VERDICTS = {
    "incomplete": "read, but dialogues or turns of the reference are missing",
    "mismatched": "read, but it has dialogues or turns the reference does not have",
    "unreadable": "could not be read as a prediction file in an accepted format",
    "missing": "no file was chosen, and this phase needs one",
    "too large": "larger than the largest accepted file",
    "unknown condition": "this phase has no such condition",
    "valid": "it passed every check: choose it again as it is",
    "unchecked": "not read, since the upload was refused for another file: choose it again",
}


def _verdicts(form: SubmissionForm, refused: services.SubmissionRejected) -> list[dict[str, str]]:
    """One line per condition of a refused upload, in the phase's order: what was wrong with
    its file, or that the file was valid."""
    names = {key: upload.name or "" for key, upload in form.files_by_condition().items()}
    rows = []
    for condition in form.conditions:
        key = condition.key
        if key in refused.valid:
            kind = "unchecked"
        elif key in refused.messages:
            kind = refused.kinds.get(key, "unreadable")
        else:
            continue  # left out of a partial upload, and no file needed
        rows.append(
            {
                "key": key,
                "label": condition.label,
                "name": names.get(key, ""),
                "file": wording.file_name(names.get(key, "")),
                "field": form[file_field_name(condition)].id_for_label,
                "kind": kind,
                "meaning": VERDICTS.get(kind, VERDICTS["unreadable"]),
            }
        )
    return rows


def _file_rows(
    form: SubmissionForm, verdicts: list[dict[str, str]], rejected: dict[str, str]
) -> list[dict[str, Any]]:
    """One file field per condition of the upload form, with what was wrong with its last
    upload: its verdict and the scorer's message."""
    by_key = {v["key"]: v for v in verdicts}
    rows = []
    for condition, field in form.file_fields():
        verdict = by_key.get(condition.key)
        rows.append(
            {
                "condition": condition,
                "field": field,
                "css": "field has-error" if field.errors or condition.key in rejected else "field",
                "verdict": {"kind": verdict["kind"], "text": wording.file_verdict(verdict)}
                if verdict
                else None,
                "message": rejected.get(condition.key, ""),
            }
        )
    return rows


def _summary(challenge: Challenge) -> tuple[Column, ...]:
    """The metrics "my submissions" shows per condition: the leaderboard's first two columns
    (the primary metric among them)."""
    return columns(challenge, [])[:2]


@login_required
def mine(request: AuthenticatedHttpRequest, slug: str, phase: str) -> HttpResponse:
    selected = phase_or_404(slug, phase, request.user)
    prefix = selectors.score_prefix(selected, access(selected, request.user))
    part = selectors.shown_part(prefix)
    summary = _summary(selected.challenge)
    submissions = list(selectors.team_submissions(request.user, selected))
    for submission in submissions:
        for result in submission.active_results:
            # the condition's metrics as the column's heading lists them: "75.00 / 16.67"
            result.shown = " / ".join(numbers.score(cell(result, c.name, part)[0]) for c in summary)
        submission.status_url = (
            ""
            if submission.status in selectors.FINAL_STATUSES
            else reverse("submissions:status", args=[submission.pk])
        )
    # the same rule as the table's numbers (``score_prefix``): ``history.series`` applies it
    runs = history.series(request.user, selected)
    context = {
        "history": runs,
        "figures": history.figures(runs),
        "phase": selected,
        "challenge": selected.challenge,
        "summary": summary,
        "submissions": submissions,
        "show_scores": prefix is not None,
        "notice": wording.scores_notice(prefix is not None, part is not None),
        # what the status polls update (submissions.js), and the scores column's heading
        "metric_names": " ".join(c.name for c in summary),
        "metric_labels": " / ".join(c.label for c in summary),
        "history_scope": wording.history_scope(runs["part"]),
        "conditions": list(selected.conditions.order_by("order", "key")),
        "poll_ms": POLL_MS,
    }
    return render(request, "submissions/mine.html", context)


#: Scalar details that, when a task reports all four, read as one line of slot-value errors.
ERROR_COUNTS = ("sub", "del", "ins", "n_ref")


def _result_tables(result: Result, task: Task) -> dict[str, Any]:
    """Everything the result page shows of one Result, from what the scorer stored."""
    tables = selectors.breakdown_tables(result)
    details = tables["details"]
    errors = all(details.get(k) is not None for k in ERROR_COUNTS)
    return {
        **tables,
        "metrics": [
            {**m, "hint": wording.hint(m["direction"])} for m in analysis.metric_rows(result, task)
        ],
        "edits": wording.edits_line({k: details[k] for k in ERROR_COUNTS} if errors else None),
        "counts_line": wording.counts_line(tables["counts"]),
        "facts": [
            *tables["counts"].items(),
            *((k, v) for k, v in details.items() if not (errors and k in ERROR_COUNTS)),
        ],
        "errors": analysis.slot_errors(result),
        "positions": analysis.by_position(result),
        "worst": analysis.worst_dialogues(result),
    }


@login_required
def detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    submission = get_object_or_404(
        selectors.visible_submissions(request.user).prefetch_related(
            selectors.active_results(), "files__condition"
        ),
        pk=pk,
    )
    phase = submission.phase
    challenge = phase.challenge
    task = challenge.scoring_task()
    rights = access(phase, request.user)
    show_scores = rights.own_full
    prefix = selectors.score_prefix(phase, rights)
    # What a team sees of its own submission while the rest is hidden: the public part.
    part_columns: tuple[Column, ...] = ()
    part_results: list[tuple[Result, list[Any]]] = []
    if prefix is not None and not show_scores:
        part = selectors.shown_part(prefix)
        part_columns = columns(challenge, [r.part(part)[0] for r in submission.active_results])
        part_results = [
            (r, [cell(r, c.name, part) for c in part_columns]) for r in submission.active_results
        ]
    #: the per-turn verdicts (by position, worst dialogues, per domain) are on this metric
    turn_label = task.metric(task.primary).label
    # One condition at a time (``?condition=KEY``, the first by default), under a summary of all.
    shown = submission.active_results if show_scores else []
    selected = next(
        (r for r in shown if r.condition.key == request.GET.get("condition")),
        shown[0] if shown else None,
    )
    results = []
    figures: dict[str, object] = {}
    if selected is not None:
        tables = _result_tables(selected, task)
        figures.update(analysis.result_figures(selected, tables["positions"], turn_label))
        results.append((selected, tables))
    withdrawal = of_submission(submission)
    organiser = challenge.is_organised_by(request.user)
    others = (
        selectors.visible_submissions(request.user)
        .filter(team=submission.team, phase=phase, status=Submission.Status.SCORED)
        .exclude(pk=submission.pk)
        .order_by("-created_at")
        if show_scores and results
        else Submission.objects.none()
    )
    context = {
        "figures": figures,
        "others": others,
        "submission": submission,
        "phase": phase,
        "challenge": challenge,
        "show_scores": show_scores,
        "part_columns": part_columns,
        "part_results": part_results,
        "turn_label": turn_label,
        "primary_label": task.metric(challenge.primary).label,
        "tiebreak_label": task.metric(challenge.tiebreak).label,
        "history": [
            {"result": r, **wording.history_state(r.current, r.reference.active)}
            for r in submission.results.select_related("condition", "reference").order_by(
                "condition__order", "-created_at"
            )
        ]
        if show_scores
        else [],
        "results": results,
        "summary": wording.summary_table(
            analysis.summary(shown, task, [challenge.primary, challenge.tiebreak]), selected
        ),
        "breakdown_heading": wording.breakdown_heading(
            turn_label, bool(results and results[0][1]["domains"])
        ),
        "can_select": is_member(submission.team, request.user)
        and submission.status == Submission.Status.SCORED
        and phase.has_private_board
        and phase.is_open(),
        "status_url": ""
        if selectors.is_final(submission)
        else reverse("submissions:status", args=[submission.pk]),
        "can_choose_public": phase.public_run_chosen
        and not phase.revealed
        and not submission.is_baseline
        and submission.status == Submission.Status.SCORED
        and is_member(submission.team, request.user),
        "can_cancel": submission.status == Submission.Status.QUEUED
        and is_member(submission.team, request.user),
        "can_edit": not submission.is_baseline and is_member(submission.team, request.user),
        "poll_ms": POLL_MS,
        "verdicts": _stored_verdicts(submission, phase),
        "withdrawal": withdrawal,
        "withdrawal_notice": wording.withdrawal_notice(
            bool(withdrawal.submission_id), submission.team.name, phase.name
        )
        if withdrawal
        else None,
        "withdraw_url": reverse("challenges:withdrawals", args=[challenge.slug, phase.slug])
        + f"?team={submission.team_id}&submission={submission.pk}"
        if organiser and not withdrawal
        else "",
        "error_heading": wording.error_heading(submission.status),
        "final_toggle": wording.final_toggle(submission.selected_for_final),
        "public_toggle": wording.public_toggle(submission.shown_on_public),
        "part_notice": wording.part_notice(bool(part_results) and phase.has_split),
        "pending_note": wording.pending_note(submission.status) if show_scores else "",
    }
    return render(request, "submissions/detail.html", context)


def _stored_verdicts(submission: Submission, phase: Phase) -> list[dict[str, str]]:
    """One line per file of a refused upload (``Submission.verdicts``), in the phase's order."""
    if not submission.verdicts:
        return []
    labels = {c.key: c.label for c in phase.conditions.all()}
    order = list(labels)
    found = sorted(
        submission.verdicts.items(),
        key=lambda item: order.index(item[0]) if item[0] in labels else len(order),
    )
    return [
        {
            "key": key,
            "label": labels.get(key, key),
            "name": verdict.get("name", ""),
            "file": wording.file_name(verdict.get("name", "")),
            "kind": verdict.get("kind", "unreadable"),
            "meaning": VERDICTS.get(verdict.get("kind", ""), VERDICTS["unreadable"]),
        }
        for key, verdict in found
    ]


@login_required
def correctness_csv(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The submission's per-turn verdicts on the primary metric, one row per user turn of each
    condition: the team's own results (and its organisers'), only where the team may see every
    number; no gold value is in it."""
    submission = get_object_or_404(
        selectors.visible_submissions(request.user).prefetch_related(selectors.active_results()),
        pk=pk,
    )
    if not access(submission.phase, request.user).own_full:
        raise Http404
    response = HttpResponse(
        analysis.correctness_csv(submission.active_results), content_type="text/csv; charset=utf-8"
    )
    name = f"submission-{submission.pk}-correctness.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    add_never_cache_headers(response)
    return response


@login_required
def status(request: AuthenticatedHttpRequest, pk: int) -> JsonResponse:
    submission = get_object_or_404(selectors.visible_submissions(request.user), pk=pk)
    prefix = selectors.score_prefix(submission.phase, access(submission.phase, request.user))
    response = JsonResponse(selectors.status_summary(submission, prefix=prefix))
    add_never_cache_headers(response)
    return response


@login_required
@require_POST
def cancel(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
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
def compare(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Two submissions of the same team and phase, condition by condition: paired tests and the
    dialogues one gets right and the other wrong. ``?with=<id>`` names the second one."""
    visible = selectors.visible_submissions(request.user).prefetch_related(
        selectors.active_results()
    )
    first = get_object_or_404(visible, pk=pk)
    other_pk = row_id(request.GET.get("with", ""))
    if other_pk is None:
        raise Http404
    second = get_object_or_404(visible, pk=other_pk, team=first.team, phase=first.phase)
    phase = first.phase
    if not access(phase, request.user).own_full:
        raise Http404
    context = {
        "a": first,
        "b": second,
        "phase": phase,
        "challenge": phase.challenge,
        "conditions": [
            (c, wording.compare_sides(c.only_a, c.only_b, analysis.DIFFERING_DIALOGUES))
            for c in analysis.compare(
                first.active_results,
                second.active_results,
                phase.challenge.scoring_task(),
                phase.challenge.resampling(),
            )
        ],
    }
    return render(request, "submissions/compare.html", context)


@login_required
@require_POST
def final(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Mark (``selected=1``) or unmark one of the team's final submissions."""
    submission = selectors.own_submissions(request.user).filter(pk=pk).first()
    if submission is None:
        raise Http404
    selected = request.POST.get("selected") == "1"
    try:
        services.select_final(submission, request.user, selected)
    except services.SelectionError as exc:
        messages.error(request, str(exc))
    else:
        verb = "selected as final" if selected else "no longer a final selection"
        messages.success(request, f"Submission #{submission.pk} is {verb}.")
    return redirect("submissions:detail", submission.pk)


@login_required
@require_POST
def public(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Make (``chosen=1``) or stop making the run the one its team's public board rows show."""
    submission = selectors.own_submissions(request.user).filter(pk=pk).first()
    if submission is None:
        raise Http404
    chosen = request.POST.get("chosen") == "1"
    try:
        services.choose_public(submission, request.user, chosen)
    except services.SelectionError as exc:
        messages.error(request, str(exc))
    else:
        verb = (
            "the run shown on the public leaderboard"
            if chosen
            else "not chosen: the public leaderboard shows your best run"
        )
        messages.success(request, f"Submission #{submission.pk} is {verb}.")
    return redirect("submissions:detail", submission.pk)


@login_required
def edit(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """A member of the team edits the method's name, description and URL of its run, under
    the upload's limits (``MethodForm``); dated, audit-logged (``services.edit_method``)."""
    submission = selectors.own_submissions(request.user).filter(pk=pk).first()
    if submission is None or submission.is_baseline:
        raise Http404
    initial = {name: getattr(submission, name) for name in services.metadata.EDITABLE}
    form = MethodForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            changed = services.edit_method(
                submission, request.user, **{k: form.cleaned_data[k] for k in initial}
            )
        except services.EditError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                f"Submission #{submission.pk}'s method is updated."
                if changed
                else "Nothing changed.",
            )
            return redirect("submissions:detail", submission.pk)
    context = {
        "form": form,
        "submission": submission,
        "phase": submission.phase,
        "challenge": submission.phase.challenge,
    }
    return render(request, "submissions/edit.html", context)
