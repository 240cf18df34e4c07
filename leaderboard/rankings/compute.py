"""A phase's board computed from its Results: queries ranked by the ORM, then rank groups,
the overview and the charts. Only the board's worker task calls ``compute`` (``boards``);
pages and the API read the stored board.

Per condition: each team's best Result (each baseline method of a team its own row, badged)
on the condition's active reference by the primary metric in its direction (typed ``primary``
columns, see ``submissions.metrics``), then the tie-breaking metric in its direction, then the
earlier submission; undefined metrics rank last. The overview ranks each team's best
submission across the conditions (``overview``). What a board holds is ``board``; who may see
which part is ``challenges.visibility``.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

import numpy as np
from django.db.models import Count, F, OrderBy, Window
from django.db.models.functions import Rank, RowNumber

from leaderboard.challenges.models import Condition, Phase
from leaderboard.challenges.split import part_of
from leaderboard.rankings.board import (
    HIDDEN_STATUSES,
    Column,
    ConditionBoard,
    Counted,
    Leaderboard,
    Row,
    columns,
    counted,
    counted_values,
    entrant_key,
    entry,
    prefix,
    split_part,
)
from leaderboard.rankings.charts import figures
from leaderboard.rankings.finals import final_submission_ids
from leaderboard.rankings.groups import comparable_on, rank_groups
from leaderboard.rankings.models import ReportedResult
from leaderboard.rankings.overview import overview_rows
from leaderboard.submissions import ratios
from leaderboard.submissions.models import Result, Submission
from scoring.taskapi import DialogueRatios


def reported_rows(phase: Phase, *, organiser: bool = False) -> list[dict[str, Any]]:
    """Figures reported elsewhere that the organisers chose to show (all, for organisers)."""
    rows = ReportedResult.objects.filter(phase=phase).select_related("condition")
    if not organiser:
        rows = rows.filter(shown=True)
    return [
        {
            "condition": r.condition.key,
            "label": r.label,
            "metrics": dict(r.metrics),
            "source": r.source,
            "shown": r.shown,
            "scored_here": False,
        }
        for r in rows
    ]


def ordering(phase: Phase, part: str) -> list[OrderBy]:
    """Best first: the primary metric, then the tie-breaker, each in its direction (NULLs
    last), then the earlier submission."""
    challenge = phase.challenge
    direction = {m.name: m.direction for m in challenge.scoring_task().metrics}
    p = prefix(phase, part)
    keys = []
    for column, metric in (("primary", challenge.primary), ("tiebreak", challenge.tiebreak)):
        field = F(f"{p}{column}")
        lower = direction[metric] == "lower"
        keys.append(field.asc(nulls_last=True) if lower else field.desc(nulls_last=True))
    return [*keys, F("submission__created_at").asc(), F("submission_id").asc()]


def compute(phase: Phase, part: str = "public") -> Leaderboard:
    """Build the leaderboard without the cache."""
    challenge = phase.challenge
    counts = dict(
        Submission.objects.filter(phase=phase)
        .exclude(status__in=HIDDEN_STATUSES)
        .values_list("team_id")
        .annotate(n=Count("pk"))
        .values_list("team_id", "n")
    )
    only = final_submission_ids(phase) if part == "private" else None
    # Every counted Result once, as values: the condition boards' rows and the overview.
    results = counted_values(phase, part, only)
    shown = columns(challenge, (r.metrics for r in results))
    ranked = _ranked(phase, part, only, {r.pk: r for r in results})
    # Only the primary metric's per-dialogue statistics are needed, for the rank groups.
    stored = [
        (r.pk, reference_id, data) for rows in ranked.values() for r, _, reference_id, data in rows
    ]
    dialogues = part_dialogues(phase, part, stored, challenge.primary)
    conditions = list(phase.conditions.order_by("order", "key"))
    boards = tuple(
        _condition_board(phase, c, shown, counts, ranked.get(c.pk, []), dialogues)
        for c in conditions
    )
    groups = {b.key: {r.submission_id: r.group for r in b.rows if r.group} for b in boards}
    board = Leaderboard(
        phase_id=phase.pk,
        primary_metric=challenge.primary,
        conditions=boards,
        part=part,
        overview=overview_rows(results, shown, conditions, counts, groups),
        reported=tuple(reported_rows(phase)) if part == "public" else (),
        version=str(phase.board_version),
        columns=shown,
        task=challenge.task,
    )
    return replace(board, charts=figures(board))


def part_dialogues(
    phase: Phase, part: str, stored: list[tuple[int, int, Any]], metric: str
) -> dict[int, DialogueRatios | None]:
    """Result id -> its per-dialogue statistics of ``metric``, the challenge's primary metric,
    on the board's part of the split (None when it has none), from ``(result id, reference
    id, primary_ratios)``.

    Every Result's statistics list its reference's dialogues in the reference's order
    (``DialogueRatios``), so the dialogue ids are read once per reference, from one of its
    Results, and split once; the Results of one reference share them."""
    which = split_part(phase, part)
    decoded = [
        (pk, reference_id, ratios.primary(data, metric)) for pk, reference_id, data in stored
    ]
    holders: dict[int, int] = {}  # reference id -> one of its Results with statistics
    for pk, reference_id, pair in decoded:
        if pair is not None:
            holders.setdefault(reference_id, pk)
    # reference id -> (its number of dialogues, the positions on this part, the ids there)
    kept: dict[int, tuple[int, np.ndarray | None, tuple[str, ...]]] = {}
    for reference_id, ids in Result.objects.filter(pk__in=holders.values()).values_list(
        "reference_id", "dialogues__ids"
    ):
        ids = ids or []
        keep = [i for i, d in enumerate(ids) if which is None or part_of(phase, d) == which]
        positions = None if len(keep) == len(ids) else np.asarray(keep, dtype=np.intp)
        kept[reference_id] = (len(ids), positions, tuple(ids[i] for i in keep))
    found: dict[int, DialogueRatios | None] = {}
    for key, reference_id, pair in decoded:
        total, positions, kept_ids = kept.get(reference_id, (0, None, ()))
        if pair is None or not kept_ids or not len(pair[0]) == len(pair[1]) == total:
            found[key] = None
            continue
        numerators, denominators = pair
        if positions is not None:
            numerators, denominators = numerators[positions], denominators[positions]
        found[key] = DialogueRatios(kept_ids, {metric: (numerators, denominators)})
    return found


#: A ranked Result: its row's values, its rank on its condition, its reference, and its
#: primary metric's stored per-dialogue statistics.
Ranked = tuple[Counted, int, int, Any]


def _ranked(
    phase: Phase, part: str, only: frozenset[int] | None, found: dict[int, Counted]
) -> dict[int, list[Ranked]]:
    """Condition id -> the best Result of each entrant there, best first, ranked in the
    database (one query for every condition; the rows' values from ``found``,
    ``counted_values``)."""
    order = ordering(phase, part)
    best = (
        counted(phase, only)
        .annotate(
            nth=Window(RowNumber(), partition_by=[F("condition_id"), entrant_key()], order_by=order)
        )
        .filter(nth=1)
        .values("pk")
    )
    rows = (
        Result.objects.filter(pk__in=best)
        .annotate(rank=Window(Rank(), partition_by=[F("condition_id")], order_by=order))
        .order_by("condition_id", *order)
        .values_list("condition_id", "pk", "rank", "reference_id", "primary_ratios")
    )
    ranked: dict[int, list[Ranked]] = {}
    for condition_id, pk, rank, reference_id, data in rows:
        # A Result written since ``found`` was read: its change asks for another build.
        if pk in found:
            ranked.setdefault(condition_id, []).append((found[pk], rank, reference_id, data))
    return ranked


def _condition_board(
    phase: Phase,
    condition: Condition,
    shown: tuple[Column, ...],
    counts: dict[int, int],
    ranked: list[Ranked],
    dialogues: dict[int, DialogueRatios | None],
) -> ConditionBoard:
    """``condition``'s board from its ranked Results (``_ranked``), with rank groups on their
    primary metric's per-dialogue statistics (``dialogues``, ``part_dialogues``)."""
    challenge = phase.challenge
    primary = challenge.primary
    cells = {r.pk: tuple(r.cell(c.name) for c in shown) for r, _, _, _ in ranked}
    at = next((i for i, c in enumerate(shown) if c.name == primary), None)
    tested = [
        dialogues.get(r.pk) if at is not None and cells[r.pk][at][0] is not None else None
        for r, _, _, _ in ranked
    ]
    ranks = [rank for _, rank, _, _ in ranked]
    labels = rank_groups(ranks, tested, primary, challenge.resampling())
    note = ""
    # Statistics on both sides of a pair, but no pair with the same denominators. (A board
    # whose Results are not re-scored yet after a change of the primary metric has none.)
    pairs = [(a, b) for a, b in itertools.pairwise(tested) if a is not None and b is not None]
    if pairs and not any(comparable_on(primary, a, b) for a, b in pairs):
        note = (
            "No rank groups: the paired bootstrap needs the same per-dialogue denominators on "
            "both sides, which this metric does not have here."
        )
    rows = tuple(
        Row(
            **entry(rank, r),
            signature=r.signature,
            submissions=counts.get(r.team_id, 0),
            group=label,
            cells=cells[r.pk],
        )
        for (r, rank, _, _), label in zip(ranked, labels, strict=True)
    )
    return ConditionBoard(condition.pk, condition.key, condition.label, rows, note)
