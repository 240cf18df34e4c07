"""Read-side lookups for the submission pages, always scoped to the user in the query itself.

Kept apart from ``services.py`` (the write workflows, already near the size where a module
becomes a package): a view never fetches a submission by id and checks access afterwards, it
asks for the id among the rows this user may see, so another team's row is simply not found.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Prefetch, Q, QuerySet

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.submissions.models import Result, Submission
from leaderboard.teams.models import Team

#: Statuses after which a submission never changes by itself (the page stops polling).
FINAL_STATUSES = (
    Submission.Status.SCORED,
    Submission.Status.FAILED,
    Submission.Status.CANCELLED,
    Submission.Status.INVALID,
)


def visible_submissions(user: AbstractBaseUser) -> QuerySet[Submission]:
    """Submissions of ``user``'s teams, and of the challenges ``user`` organises."""
    if not user.is_authenticated:
        return Submission.objects.none()
    mine = Team.objects.filter(memberships__user=user).values("pk")
    organised = Challenge.objects.filter(organisers=user).values("pk")
    return Submission.objects.filter(
        Q(team__in=mine) | Q(phase__challenge__in=organised)
    ).select_related("team", "phase__challenge")


def own_submissions(user: AbstractBaseUser) -> QuerySet[Submission]:
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


def team_submissions(user: AbstractBaseUser, phase: Phase) -> QuerySet[Submission]:
    """Submissions of ``user``'s own teams in ``phase``, newest first."""
    return (
        own_submissions(user)
        .filter(phase=phase)
        .prefetch_related(active_results())
        .order_by("-created_at", "-pk")
    )


def breakdown_tables(result: Result) -> dict[str, Any]:
    """The parts of ``Result.breakdown`` the result page shows, as sorted rows."""
    data = result.breakdown or {}
    domains = sorted((data.get("per_domain") or {}).items())
    slots = sorted((data.get("per_slot") or {}).items())
    return {
        "format": data.get("format", ""),
        "turns": data.get("turns"),
        "dialogues": data.get("dialogues"),
        "precision": data.get("slot_precision"),
        "recall": data.get("slot_recall"),
        "f1": data.get("slot_f1", result.slot_f1),
        "warnings": list(data.get("warnings") or []),
        "missing_turns": data.get("missing_turns") or 0,
        "domains": [{"name": name, **values} for name, values in domains],
        "slots": [{"name": name, **values} for name, values in slots],
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


def shown_metrics(result: Result, prefix: str) -> dict[str, float | None]:
    return {
        name: getattr(result, f"{prefix}{name}")
        for name in (
            *("jga", "jga_low", "jga_high", "ser", "ser_low", "ser_high"),
            # the task's primary metric (any task), see ``submissions.metrics``
            *("primary", "primary_low", "primary_high"),
        )
    }


def status_summary(submission: Submission, *, prefix: str | None) -> dict[str, Any]:
    """The small JSON the "my submissions" page polls: status, attempts, error, and per
    condition JGA/SER once scored, as far as this user may see them (``score_prefix``)."""
    results: dict[str, dict[str, float | None]] = {}
    if prefix is not None and submission.status == Submission.Status.SCORED:
        for result in (
            submission.results.filter(reference__active=True, current=True)
            .select_related("condition")
            .order_by("condition__order", "condition__key")
        ):
            metrics = shown_metrics(result, prefix)
            results[result.condition.key] = {
                "jga": metrics["jga"],
                "ser": metrics["ser"],
                "primary": metrics["primary"],
            }
    return {
        "id": submission.pk,
        "status": submission.status,
        "status_label": submission.get_status_display(),
        "final": is_final(submission),
        "attempts": submission.attempts,
        "error": submission.error,
        "results": results,
        "part": {"": "all", "public_": "public"}.get(prefix or "", "all") if results else None,
    }
