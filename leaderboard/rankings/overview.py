"""The overview of a leaderboard: each team's best submission across the conditions (each
baseline method of a team its own row).

It ranks by the means over the conditions of the board's first two columns, the primary
metric first, each in its direction; a submission missing a condition has no mean and ranks
after those that cover every condition. When no submission has a mean (a condition has no
score at all, e.g. after a reference version that refuses every file), the overview ranks
nobody: it has no rows, never a rank 1 shared by rows without means.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from leaderboard.challenges.models import Condition
from leaderboard.rankings.board import Cell, Column, Counted, OverviewRow, entry


@dataclass(frozen=True)
class Planned:
    """An overview row before its statistics: its submission, rank and figures."""

    submission_id: int
    rank: int
    means: tuple[float | None, ...]
    #: the Result it takes its entry's fields from
    result: Counted
    per_condition: dict[str, tuple[float | None, ...]]
    cells: dict[str, tuple[Cell, ...]]


def overview_plan(
    results: Sequence[Counted], shown: tuple[Column, ...], conditions: list[Condition]
) -> list[Planned]:
    """The overview of the board whose counted Results are ``results`` (``counted_values``,
    oldest first), best first, before its statistics (``overview_rows``)."""
    # Means over conditions need every Result of every submission; the board is built once
    # per change of the phase, so this Python pass runs once per change, not once per request.
    keys = {c.pk: c.key for c in conditions}
    pair = shown[:2]
    per_submission: dict[int, dict[str, tuple[float | None, ...]]] = {}
    cells: dict[int, dict[str, tuple[Cell, ...]]] = {}
    meta: dict[int, Counted] = {}
    for r in results:
        found = tuple(r.cell(c.name) for c in pair)
        key = keys[r.condition_id]
        cells.setdefault(r.submission_id, {})[key] = found
        per_submission.setdefault(r.submission_id, {})[key] = tuple(value for value, _, _ in found)
        meta[r.submission_id] = r
    order = sorted(range(len(pair)), key=lambda i: not pair[i].primary)

    def mean(values: list[float | None]) -> float | None:
        if len(values) != len(conditions) or any(v is None for v in values):
            return None
        return sum(v for v in values if v is not None) / len(values)

    def sort_key(item: tuple[int, tuple[float | None, ...]]) -> tuple[object, ...]:
        pk, means = item
        metrics = []
        for i in order:
            value = means[i]
            sign = 1.0 if pair[i].direction == "lower" else -1.0
            metrics.append((value is None, sign * (value or 0.0)))
        return (*metrics, meta[pk].submitted_at, pk)

    scored = [
        (pk, tuple(mean([v[i] for v in values.values()]) for i in range(len(pair))))
        for pk, values in per_submission.items()
    ]
    scored.sort(key=sort_key)
    if all(means[order[0]] is None for _, means in scored):
        return []  # nobody has a mean over every condition: no ranking to give
    planned: list[Planned] = []
    seen: set[tuple[int, str]] = set()
    previous: tuple[object, ...] | None = None
    for pk, means in scored:
        result = meta[pk]
        if result.entrant in seen:
            continue
        seen.add(result.entrant)
        metrics = sort_key((pk, means))[: len(pair)]
        rank = planned[-1].rank if planned and metrics == previous else len(planned) + 1
        previous = metrics
        planned.append(Planned(pk, rank, means, result, per_submission[pk], cells[pk]))
    return planned


def overview_rows(
    planned: Sequence[Planned],
    conditions: list[Condition],
    counts: dict[tuple[int, str], int],
    groups: dict[str, dict[int, str]] | None = None,
    intervals: Sequence[tuple[int, int] | None] | None = None,
) -> tuple[OverviewRow, ...]:
    """The overview's rows (``overview_plan``). ``counts``: entrant -> its scored
    submissions; ``groups``: condition key -> submission id -> its rank group on that
    condition's board; ``intervals``: each row's rank interval, in order."""
    rows = []
    for n, plan in enumerate(planned):
        pk = plan.submission_id
        interval = intervals[n] if intervals is not None else None
        rows.append(
            OverviewRow(
                **entry(plan.rank, plan.result),
                per_condition=plan.per_condition,
                submissions=counts.get(plan.result.entrant, 0),
                change=_change(plan.per_condition, conditions),
                means=plan.means,
                cells=plan.cells,
                groups={key: found[pk] for key, found in (groups or {}).items() if pk in found},
                rank_low=interval[0] if interval else None,
                rank_high=interval[1] if interval else None,
            )
        )
    return tuple(rows)


def _change(
    per_condition: dict[str, tuple[float | None, ...]], conditions: list[Condition]
) -> float | None:
    """The first column on the last condition minus on the first; None if missing."""
    if len(conditions) < 2:
        return None
    first = (per_condition.get(conditions[0].key) or (None,))[0]
    last = (per_condition.get(conditions[-1].key) or (None,))[0]
    return None if first is None or last is None else last - first
