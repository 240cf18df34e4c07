"""Leaderboards: queries over Results, ranked by the ORM, cached per phase and part.

A phase has two boards: ``public`` (every counted submission, ranked on the public part of the
split) and ``private`` (only each team's final selections, ranked on the private part; shown
to readers only as published snapshots). Without a split both use the whole reference. Only
``current`` Results on the *active* reference count. Anonymous teams are named
"Anonymous team ..." in every board, so no page, export or chart built from it shows them.

Per condition: each team's best Result on the condition's *active* reference, by the primary
metric (JGA higher is better, SER lower is better; the other metric breaks ties, then the
earlier submission), NULL metrics ranked last. The overview ranks each team's best submission
by the mean of its per-condition scores; a submission missing a condition has no mean and
ranks after those that cover every condition.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, F, OrderBy, Window
from django.db.models.functions import Rank, RowNumber

from leaderboard.challenges.models import Condition, Phase
from leaderboard.rankings.groups import rank_groups
from leaderboard.rankings.models import ReportedResult
from leaderboard.submissions.models import Result, Submission

CACHE_VERSION = 4
PARTS = ("public", "private")
HIDDEN_STATUSES = (Submission.Status.INVALID, Submission.Status.CANCELLED)


@dataclass(frozen=True)
class Row:
    rank: int
    team_id: int
    team_name: str
    team_slug: str
    submission_id: int
    method_name: str
    is_baseline: bool
    submitted_at: dt.datetime
    jga: float | None
    jga_low: float | None
    jga_high: float | None
    ser: float | None
    ser_low: float | None
    ser_high: float | None
    signature: str
    submissions: int
    #: ranks this entry is statistically tied with, e.g. "1-2" (see ``groups``)
    group: str = ""


@dataclass(frozen=True)
class ConditionBoard:
    condition_id: int
    key: str
    label: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class OverviewRow:
    rank: int
    team_id: int
    team_name: str
    team_slug: str
    submission_id: int
    method_name: str
    is_baseline: bool
    submitted_at: dt.datetime
    jga: float | None
    ser: float | None
    #: condition key -> (jga, ser) of this submission
    per_condition: dict[str, tuple[float | None, float | None]]
    submissions: int
    #: JGA on the first condition minus JGA on the last (by condition order), in points:
    #: how much this submission loses from TTS-Verbatim to Human-Paraphrased.
    gap: float | None = None


@dataclass(frozen=True)
class Leaderboard:
    phase_id: int
    primary_metric: str
    conditions: tuple[ConditionBoard, ...]
    #: ``public`` or ``private``
    part: str
    overview: tuple[OverviewRow, ...]
    #: Plotly figures (data and layout) keyed by chart id, built once with the board
    charts: dict[str, Any] = field(default_factory=dict)
    #: figures reported elsewhere that the organisers show (unranked, "not scored here")
    reported: tuple[dict[str, Any], ...] = ()
    #: unique per build: keys the rendered HTML of this board in the cache (views.py)
    token: str = ""


def cache_key(phase_id: int, part: str = "public") -> str:
    return f"leaderboard:v{CACHE_VERSION}:phase:{phase_id}:{part}"


def invalidate(phase_id: int) -> None:
    cache.delete_many([cache_key(phase_id, part) for part in PARTS])


def leaderboard(phase: Phase, part: str = "public") -> Leaderboard:
    """The phase's rankings; cached until a Result (or reference, or submission) changes.

    Who may see which part is decided by ``challenges.visibility``, not here."""
    key = cache_key(phase.pk, part)
    board = cache.get(key)
    if board is None:
        board = compute(phase, part)
        cache.set(key, board, settings.LEADERBOARD_CACHE_SECONDS)
    return board


def prefix(phase: Phase, part: str) -> str:
    """Column prefix of ``part``'s metrics: ``public_``/``private_`` with a split, else none."""
    if part not in PARTS:
        raise ValueError(f"unknown leaderboard part {part!r}")
    return f"{part}_" if phase.has_split else ""


def team_label(team: Any) -> tuple[str, str]:
    """(name, slug) as boards show them: anonymous teams get a neutral label and no slug."""
    if team.anonymous:
        return f"Anonymous team {team.pk}", ""
    return team.name, team.slug


def reported_rows(phase: Phase, *, organiser: bool = False) -> list[dict[str, Any]]:
    """Figures reported elsewhere that the organisers chose to show (all, for organisers)."""
    rows = ReportedResult.objects.filter(phase=phase).select_related("condition")
    if not organiser:
        rows = rows.filter(shown=True)
    return [
        {
            "condition": r.condition.key,
            "label": r.label,
            "jga": r.jga,
            "ser": r.ser,
            "source": r.source,
            "shown": r.shown,
            "scored_here": False,
        }
        for r in rows
    ]


def _ordering(primary: str, p: str = "") -> list[OrderBy]:
    jga = F(f"{p}jga").desc(nulls_last=True)
    ser = F(f"{p}ser").asc(nulls_last=True)
    metrics = [ser, jga] if primary == "ser" else [jga, ser]
    return [*metrics, F("submission__created_at").asc(), F("submission_id").asc()]


def compute(phase: Phase, part: str = "public") -> Leaderboard:
    """Build the leaderboard without the cache."""
    from leaderboard.rankings.finals import final_submission_ids

    primary = phase.challenge.primary_metric
    counts = dict(
        Submission.objects.filter(phase=phase)
        .exclude(status__in=HIDDEN_STATUSES)
        .values_list("team_id")
        .annotate(n=Count("pk"))
        .values_list("team_id", "n")
    )
    conditions = list(phase.conditions.order_by("order", "key"))
    scorer = phase.challenge.scoring_settings()
    scope = _Scope(
        phase=phase,
        part=part,
        p=prefix(phase, part),
        only=final_submission_ids(phase) if part == "private" else None,
    )
    boards = tuple(_condition_board(c, primary, counts, scorer, scope) for c in conditions)
    board = Leaderboard(
        phase_id=phase.pk,
        primary_metric=primary,
        conditions=boards,
        part=part,
        overview=_overview(scope, conditions, primary, counts),
        reported=tuple(reported_rows(phase)) if part == "public" else (),
    )
    from leaderboard.rankings.charts import figures

    return replace(board, charts=figures(board), token=uuid.uuid4().hex)


@dataclass(frozen=True)
class _Scope:
    phase: Phase
    part: str
    #: column prefix of the part's metrics
    p: str
    #: the submissions ranked (final selections), or None for all counted ones
    only: frozenset[int] | None


def _counted(scope: _Scope):  # type: ignore[no-untyped-def]
    rows = Result.objects.filter(
        submission__phase=scope.phase, reference__active=True, current=True
    ).exclude(submission__status__in=HIDDEN_STATUSES)
    if scope.only is not None:
        rows = rows.filter(submission_id__in=scope.only)
    return rows


def _dialogues(scope: _Scope, stored: Any) -> Any:
    """The stored per-dialogue counts restricted to the part's dialogues (for rank groups)."""
    if stored is None or not scope.phase.has_split:
        return stored
    from leaderboard.challenges.split import select

    return select(scope.phase, scope.part, stored)


def _condition_board(
    condition: Condition, primary: str, counts: dict[int, int], scorer: Any, scope: _Scope
) -> ConditionBoard:
    p = scope.p
    order = _ordering(primary, p)
    best = (
        _counted(scope)
        .filter(condition=condition)
        .annotate(nth=Window(RowNumber(), partition_by=[F("submission__team_id")], order_by=order))
        .filter(nth=1)
        .values_list("pk", flat=True)
    )
    ranked = list(
        Result.objects.filter(pk__in=list(best))
        .select_related("submission__team")
        .defer("breakdown")
        .annotate(rank=Window(Rank(), order_by=order))
        .order_by(*order)
    )
    # Only the per-dialogue counts are needed for the rank groups: one query for all rows.
    dialogues = dict(
        Result.objects.filter(pk__in=[r.pk for r in ranked]).values_list(
            "pk", "breakdown__per_dialogue"
        )
    )
    labels = rank_groups(
        [r.rank for r in ranked],
        [
            _dialogues(scope, dialogues.get(r.pk)) if getattr(r, p + primary) is not None else None
            for r in ranked
        ],
        primary,
        scorer,
    )
    rows = tuple(
        Row(
            rank=r.rank,
            team_id=r.submission.team_id,
            team_name=team_label(r.submission.team)[0],
            team_slug=team_label(r.submission.team)[1],
            submission_id=r.submission_id,
            method_name=r.submission.method_name,
            is_baseline=r.submission.is_baseline,
            submitted_at=r.submission.created_at,
            jga=getattr(r, f"{p}jga"),
            jga_low=getattr(r, f"{p}jga_low"),
            jga_high=getattr(r, f"{p}jga_high"),
            ser=getattr(r, f"{p}ser"),
            ser_low=getattr(r, f"{p}ser_low"),
            ser_high=getattr(r, f"{p}ser_high"),
            signature=r.signature,
            submissions=counts.get(r.submission.team_id, 0),
            group=label,
        )
        for r, label in zip(ranked, labels, strict=True)
    )
    return ConditionBoard(condition.pk, condition.key, condition.label, rows)


def _overview(
    scope: _Scope, conditions: list[Condition], primary: str, counts: dict[int, int]
) -> tuple[OverviewRow, ...]:
    # Means over conditions need every Result of every submission; the result is cached, so
    # this Python pass runs once per Result write, not once per request.
    keys = {c.pk: c.key for c in conditions}
    per_submission: dict[int, dict[str, tuple[float | None, float | None]]] = {}
    meta: dict[int, Result] = {}
    results = _counted(scope).select_related("submission__team").defer("breakdown")
    p = scope.p
    for r in results.order_by("created_at"):
        per_submission.setdefault(r.submission_id, {})[keys[r.condition_id]] = (
            getattr(r, f"{p}jga"),
            getattr(r, f"{p}ser"),
        )
        meta[r.submission_id] = r

    def mean(values: list[float | None]) -> float | None:
        if len(values) != len(conditions) or any(v is None for v in values):
            return None
        return sum(v for v in values if v is not None) / len(values)

    def sort_key(item: tuple[int, float | None, float | None]) -> tuple[object, ...]:
        pk, jga, ser = item
        jga_key = (jga is None, -(jga or 0.0))
        ser_key = (ser is None, ser or 0.0)
        metrics = (ser_key, jga_key) if primary == "ser" else (jga_key, ser_key)
        return (*metrics, meta[pk].submission.created_at, pk)

    scored = [
        (pk, mean([v[0] for v in values.values()]), mean([v[1] for v in values.values()]))
        for pk, values in per_submission.items()
    ]
    scored.sort(key=sort_key)
    rows: list[OverviewRow] = []
    seen: set[int] = set()
    previous: tuple[object, ...] | None = None
    for pk, jga, ser in scored:
        submission = meta[pk].submission
        if submission.team_id in seen:
            continue
        seen.add(submission.team_id)
        metrics = sort_key((pk, jga, ser))[:2]
        rank = rows[-1].rank if rows and metrics == previous else len(rows) + 1
        previous = metrics
        rows.append(
            OverviewRow(
                rank=rank,
                team_id=submission.team_id,
                team_name=team_label(submission.team)[0],
                team_slug=team_label(submission.team)[1],
                submission_id=pk,
                method_name=submission.method_name,
                is_baseline=submission.is_baseline,
                submitted_at=submission.created_at,
                jga=jga,
                ser=ser,
                per_condition=per_submission[pk],
                submissions=counts.get(submission.team_id, 0),
                gap=_gap(per_submission[pk], conditions),
            )
        )
    return tuple(rows)


def _gap(
    per_condition: dict[str, tuple[float | None, float | None]], conditions: list[Condition]
) -> float | None:
    """JGA on the first condition minus JGA on the last; None if either is missing."""
    if len(conditions) < 2:
        return None
    first = per_condition.get(conditions[0].key, (None, None))[0]
    last = per_condition.get(conditions[-1].key, (None, None))[0]
    return None if first is None or last is None else first - last
