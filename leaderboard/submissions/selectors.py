"""Read-side lookups for the submission pages, always scoped to the user in the query itself.

Kept apart from ``services.py`` (the write workflows, already near the size where a module
becomes a package): a view never fetches a submission by id and checks access afterwards, it
asks for the id among the rows this user may see, so another team's row is simply not found.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Prefetch, Q, QuerySet

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.submissions import analysis
from leaderboard.submissions.models import Result, Submission
from leaderboard.teams.models import Team
from scoring import Task

#: Statuses after which a submission never changes by itself (the page stops polling).
FINAL_STATUSES = (
    Submission.Status.SCORED,
    Submission.Status.FAILED,
    Submission.Status.CANCELLED,
    Submission.Status.INVALID,
)


def visible_submissions(user: User | AnonymousUser) -> QuerySet[Submission]:
    """Submissions of ``user``'s teams, and of the challenges ``user`` organises."""
    if not user.is_authenticated:
        return Submission.objects.none()
    mine = Team.objects.filter(memberships__user=user).values("pk")
    organised = Challenge.objects.filter(organisers=user).values("pk")
    return Submission.objects.filter(
        Q(team__in=mine) | Q(phase__challenge__in=organised)
    ).select_related("team", "phase__challenge")


def own_submissions(user: User | AnonymousUser) -> QuerySet[Submission]:
    """Submissions of ``user``'s own teams only (what a member may act on, e.g. cancel)."""
    if not user.is_authenticated:
        return Submission.objects.none()
    mine = Team.objects.filter(memberships__user=user).values("pk")
    return Submission.objects.filter(team__in=mine).select_related("team", "phase__challenge")


def active_results() -> Prefetch:
    """Prefetch of a submission's Results on the active references, as ``active_results``."""
    return Prefetch(
        "results",
        queryset=Result.objects.filter(reference__active=True, current=True)
        .select_related("condition")
        .order_by("condition__order", "condition__key"),
        to_attr="active_results",
    )


def team_submissions(user: User, phase: Phase) -> QuerySet[Submission]:
    """Submissions of ``user``'s own teams in ``phase``, newest first."""
    return (
        own_submissions(user)
        .filter(phase=phase)
        .prefetch_related(active_results())
        .order_by("-created_at", "-pk")
    )


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def scalar_details(details: dict[str, Any]) -> dict[str, Any]:
    """The scalar details of a breakdown (settings, counts, rates), those of a group of
    scalars under a dotted name (``seen_unseen.seen_turns``); tables such as per-slot rows
    are left out."""
    found: dict[str, Any] = {}
    for name, value in details.items():
        if _scalar(value):
            found[name] = value
        elif isinstance(value, dict) and all(_scalar(v) for v in value.values()):
            found.update({f"{name}.{key}": v for key, v in value.items()})
    return found


def breakdown_tables(result: Result) -> dict[str, Any]:
    """What the scorer reported besides the metrics (``Result.breakdown``), for any task: the
    detected format, the counts, the warnings, the scalar details (``scalar_details``) and,
    when the task reports them, the per-domain and per-slot rows, sorted by name."""
    data = result.breakdown or {}
    details = data.get("details") or {}
    per_domain = details.get("per_domain") or {}
    per_slot = details.get("per_slot") or {}
    return {
        "format": data.get("format", ""),
        "counts": dict(data.get("counts") or {}),
        "warnings": list(data.get("warnings") or []),
        "details": scalar_details(details),
        "domains": [{"name": name, **values} for name, values in sorted(per_domain.items())],
        "slots": [{"name": name, **values} for name, values in sorted(per_slot.items())],
    }


def is_final(submission: Submission) -> bool:
    return submission.status in FINAL_STATUSES


def score_prefix(phase: Phase, rights: Any) -> str | None:
    """Which of a Result's columns this user may see of their own submission: ``""`` (whole
    reference), ``"public_"`` (public part only) or None (no numbers at all)."""
    if rights.own_full:
        return ""
    if rights.own_public:
        return "public_" if phase.has_split else ""
    return None


def shown_part(prefix: str | None) -> str | None:
    """The part of the split a ``score_prefix`` names (``public``), None for the whole
    reference."""
    return (prefix or "").removesuffix("_") or None


def shown_metrics(result: Result, prefix: str | None, task: Task) -> list[dict[str, Any]]:
    """Every metric of ``task`` that ``result`` has on the part this user may see
    (``score_prefix``), in the task's order, with its label, direction and interval."""
    return analysis.metric_rows(result, task, shown_part(prefix))


def status_summary(submission: Submission, *, prefix: str | None) -> dict[str, Any]:
    """The small JSON the "my submissions" page polls: status, attempts, error, and once
    scored, per condition key its label and every metric with its interval (``{name: {value,
    low, high}}``) as far as this user may see them (``score_prefix``); ``part`` says which
    part of the split they are on (``public``, or ``all`` for the whole reference)."""
    results: dict[str, dict[str, Any]] = {}
    if prefix is not None and submission.status == Submission.Status.SCORED:
        task = submission.phase.challenge.scoring_task()
        for result in (
            submission.results.filter(reference__active=True, current=True)
            .select_related("condition")
            .order_by("condition__order", "condition__key")
        ):
            results[result.condition.key] = {
                "label": result.condition.label,
                "metrics": {
                    m["name"]: {"value": m["value"], "low": m["low"], "high": m["high"]}
                    for m in shown_metrics(result, prefix, task)
                },
            }
    return {
        "id": submission.pk,
        "status": submission.status,
        "status_label": submission.get_status_display(),
        "final": is_final(submission),
        "attempts": submission.attempts,
        "error": submission.error,
        "results": results,
        "part": (shown_part(prefix) or "all") if results else None,
    }
