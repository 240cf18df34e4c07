"""Leaderboards: queries over Results, ranked by the ORM, cached per phase and part.

A phase has two boards: ``public`` (every counted submission, ranked on the public part of the
split) and ``private`` (only each team's final selections, ranked on the private part; shown
to readers only as published snapshots). Without a split both use the whole reference. Only
``current`` Results on the *active* reference count. Anonymous teams are named
"Anonymous team ..." in every board, so no page, export or chart built from it shows them.

Per condition: each team's best Result on the condition's *active* reference, by the primary
metric in its direction (from the task's description, ``scoring.tasks``; typed ``primary``
columns, see ``submissions.metrics``), then the earlier submission, NULL metrics ranked last.
``dstc11`` keeps its typed JGA/SER columns: JGA higher is better, SER lower is better, the
other metric breaks ties. The columns shown are ``rankings.columns``.

The overview ranks each team's best submission by the mean of its per-condition scores; a
submission missing a condition has no mean and ranks after those that cover every condition.
"""

from __future__ import annotations

import datetime as dt
import itertools
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, F, OrderBy, Window
from django.db.models.functions import Rank, RowNumber

from leaderboard.challenges.models import Condition, Phase
from leaderboard.rankings.columns import TYPED, Cell, Column, cell, columns
from leaderboard.rankings.groups import comparable_on, rank_groups
from leaderboard.rankings.models import ReportedResult
from leaderboard.submissions.models import Result, Submission

CACHE_VERSION = 5
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
    #: (value, low, high) per column of the board (``Leaderboard.columns``)
    cells: tuple[Cell, ...] = ()


@dataclass(frozen=True)
class ConditionBoard:
    condition_id: int
    key: str
    label: str
    rows: tuple[Row, ...]
    #: why rank groups are missing, when the primary metric cannot be tested (F1s)
    note: str = ""


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
    #: condition key -> (jga, ser) of this submission (the board's first two columns)
    per_condition: dict[str, tuple[float | None, ...]]
    submissions: int
    #: JGA on the first condition minus JGA on the last (by condition order), in points:
    #: how much this submission loses from TTS-Verbatim to Human-Paraphrased.
    gap: float | None = None
    #: means over conditions of the board's first two columns (``per_condition`` likewise)
    means: tuple[float | None, ...] = ()


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
    #: the metrics shown, primary flagged (``rankings.columns``)
    columns: tuple[Column, ...] = ()
    task: str = "dstc11"


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


def _ordering(
    primary: str, p: str = "", task: str = "dstc11", direction: str = ""
) -> list[OrderBy]:
    if task != "dstc11" or primary not in TYPED:
        column = F(f"{p}primary")
        first = (
            column.asc(nulls_last=True) if direction == "lower" else column.desc(nulls_last=True)
        )
        return [first, F("submission__created_at").asc(), F("submission_id").asc()]
    jga = F(f"{p}jga").desc(nulls_last=True)
    ser = F(f"{p}ser").asc(nulls_last=True)
    metrics = [ser, jga] if primary == "ser" else [jga, ser]
    return [*metrics, F("submission__created_at").asc(), F("submission_id").asc()]


def compute(phase: Phase, part: str = "public") -> Leaderboard:
    """Build the leaderboard without the cache."""
    from leaderboard.rankings.finals import final_submission_ids
    from leaderboard.rankings.overview import overview_rows

    challenge = phase.challenge
    primary = challenge.primary
    counts = dict(
        Submission.objects.filter(phase=phase)
        .exclude(status__in=HIDDEN_STATUSES)
        .values_list("team_id")
        .annotate(n=Count("pk"))
        .values_list("team_id", "n")
    )
    conditions = list(phase.conditions.order_by("order", "key"))
    scorer = challenge.scoring_settings()
    scope = _Scope(
        phase=phase,
        part=part,
        p=prefix(phase, part),
        only=final_submission_ids(phase) if part == "private" else None,
        task=challenge.task,
    )
    shown = columns(challenge, _counted(scope).values_list("metrics", flat=True))
    scope = replace(scope, columns=shown)
    boards = tuple(_condition_board(c, primary, counts, scorer, scope) for c in conditions)
    board = Leaderboard(
        phase_id=phase.pk,
        primary_metric=primary,
        conditions=boards,
        part=part,
        overview=overview_rows(scope, conditions, primary, counts),
        reported=tuple(reported_rows(phase)) if part == "public" else (),
        columns=shown,
        task=challenge.task,
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
    task: str = "dstc11"
    columns: tuple[Column, ...] = ()

    def cells(self, result: Result) -> tuple[Cell, ...]:
        split = self.phase.has_split
        return tuple(cell(result, c.name, self.task, self.part, split) for c in self.columns)

    def direction(self, metric: str) -> str:
        return next((c.direction for c in self.columns if c.name == metric), "higher")


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
    order = _ordering(primary, p, scope.task, scope.direction(primary))
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
    # Only the per-dialogue counts are needed for the rank groups: one query for all rows
    # (``ratios`` for every task; dstc11 rows stored before it have their native counts).
    dialogues = {
        pk: ratios if ratios is not None else native
        for pk, ratios, native in Result.objects.filter(pk__in=[r.pk for r in ranked]).values_list(
            "pk", "breakdown__ratios", "breakdown__per_dialogue"
        )
    }
    cells = {r.pk: scope.cells(r) for r in ranked}
    index = next((i for i, c in enumerate(scope.columns) if c.name == primary), None)
    stored = [
        _dialogues(scope, dialogues.get(r.pk))
        if index is not None and cells[r.pk][index][0] is not None
        else None
        for r in ranked
    ]
    labels = rank_groups([r.rank for r in ranked], stored, primary, scorer)
    note = ""
    pairs = list(itertools.pairwise(stored))
    if pairs and not any(comparable_on(primary, a, b) for a, b in pairs):
        note = (
            "No rank groups: the paired test needs the same per-dialogue denominators on both "
            "sides, which this metric does not have here."
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
            cells=cells[r.pk],
        )
        for r, label in zip(ranked, labels, strict=True)
    )
    return ConditionBoard(condition.pk, condition.key, condition.label, rows, note)
