"""Figures for the organiser dashboard: phases and their states, queue health, daily volume."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, Min, OuterRef
from django.db.models.functions import TruncDate
from django.utils import timezone

from leaderboard.challenges import audit
from leaderboard.challenges.models import Challenge
from leaderboard.submissions.models import Result, Submission, SubmissionFile

DAYS = 14


@dataclass(frozen=True)
class QueueHealth:
    queued: int
    scoring: int
    oldest_queued_age: dt.timedelta | None
    failed_24h: int
    #: (phase name, condition label, files) of scored or failed submissions that the
    #: condition's active reference refuses (no current Result there): a reference's doing,
    #: not a failure of the submission, which "failed" does not count
    refused: tuple[tuple[str, str, int], ...] = ()


def queue_health(challenge: Challenge, now: dt.datetime | None = None) -> QueueHealth:
    now = now or timezone.now()
    rows = Submission.objects.filter(phase__challenge=challenge)
    counts = dict(
        rows.filter(status__in=[Submission.Status.QUEUED, Submission.Status.SCORING])
        .values_list("status")
        .annotate(n=Count("pk"))
        .values_list("status", "n")
    )
    oldest = rows.filter(status=Submission.Status.QUEUED).aggregate(t=Min("created_at"))["t"]
    failed = rows.filter(
        status=Submission.Status.FAILED, created_at__gte=now - dt.timedelta(hours=24)
    ).count()
    return QueueHealth(
        queued=counts.get(Submission.Status.QUEUED, 0),
        scoring=counts.get(Submission.Status.SCORING, 0),
        oldest_queued_age=None if oldest is None else now - oldest,
        failed_24h=failed,
        refused=refused_by_references(challenge),
    )


def refused_by_references(challenge: Challenge) -> tuple[tuple[str, str, int], ...]:
    """Per condition with any: the files of scored or failed submissions that have no current
    Result there, i.e. that its active reference version refuses (a version that lacks a
    dialogue, another dialogue set)."""
    scored_there = Result.objects.filter(
        submission_id=OuterRef("submission_id"), condition_id=OuterRef("condition_id"), current=True
    )
    rows = (
        SubmissionFile.objects.filter(
            submission__phase__challenge=challenge,
            submission__status__in=[Submission.Status.SCORED, Submission.Status.FAILED],
        )
        .exclude(Exists(scored_there))
        .values_list("condition__phase__name", "condition__label", "condition__key")
        .annotate(n=Count("pk"))
        .order_by("condition__phase__order", "condition__order")
    )
    return tuple((phase, label or key, n) for phase, label, key, n in rows)


def per_day(challenge: Challenge, now: dt.datetime | None = None) -> list[tuple[dt.date, int]]:
    """Submissions (every status) per day over the last ``DAYS`` days, oldest first."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    start = today - dt.timedelta(days=DAYS - 1)
    counts = dict(
        Submission.objects.filter(phase__challenge=challenge, created_at__date__gte=start)
        .annotate(day=TruncDate("created_at"))
        .values_list("day")
        .annotate(n=Count("pk"))
        .values_list("day", "n")
    )
    return [
        (start + dt.timedelta(days=i), counts.get(start + dt.timedelta(days=i), 0))
        for i in range(DAYS)
    ]


#: summary entries with a column of their own (or none: the name is in the files' list)
SHOWN_APART = ("dialogues", "turns", "name")


def reference_facts(summary: dict[str, Any]) -> str:
    """What a reference's summary says besides its dialogues and turns, whatever the task, by
    name (a JSON column need not keep the order of keys): ``files: schema (schema.json);
    format: sgd-dialogues; services: 1``."""
    facts = []
    for key, value in sorted(summary.items()):
        if key in SHOWN_APART:
            continue
        if key == "files" and isinstance(value, dict):
            value = ", ".join(f"{name} ({original})" for name, original in sorted(value.items()))
        elif isinstance(value, list | tuple | dict):
            value = len(value)
        facts.append(f"{key.replace('_', ' ')}: {value}")
    return "; ".join(facts)


def _newest_first(condition: Any) -> list[Any]:
    # from the prefetched versions: no query per condition
    return sorted(condition.references.all(), key=lambda r: r.uploaded_at, reverse=True)


def phases(challenge: Challenge) -> list[dict[str, Any]]:
    out = []
    for phase in challenge.phases.prefetch_related("conditions__references").order_by(
        "order", "opens_at"
    ):
        statuses = dict(
            phase.submissions.values_list("status")
            .annotate(n=Count("pk"))
            .values_list("status", "n")
        )
        out.append(
            {
                "phase": phase,
                "statuses": statuses,
                "snapshots": list(phase.snapshots.order_by("-number")[:5]),
                # per condition: its reference versions, newest first, with their facts
                "conditions": [
                    (
                        c,
                        [(ref, reference_facts(ref.summary or {})) for ref in _newest_first(c)],
                    )
                    for c in phase.conditions.all()
                ],
            }
        )
    return out


#: how many of the newest audit entries the dashboard lists (the API and the archive: all)
AUDIT_SHOWN = 50


def audit_rows(challenge: Challenge) -> list[dict[str, Any]]:
    """The newest audit entries of the challenge as the dashboard lists them: each with its
    changes in words ("split_seed: 2023 -> 7")."""
    rows = []
    for entry in audit.entries(challenge, limit=AUDIT_SHOWN):
        keys = list(dict.fromkeys([*entry.before, *entry.after]))
        change = "; ".join(
            f"{k}: {_short(entry.before[k])} \u2192 {_short(entry.after.get(k))}"
            if k in entry.before
            else f"{k}: {_short(entry.after[k])}"
            for k in keys
        )
        rows.append({"entry": entry, "label": audit.ACTIONS.get(entry.action), "change": change})
    return rows


def _short(value: Any) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if len(text) <= 120 else text[:117] + "..."
