"""A board's statistics from one set of resamples of each condition's dialogues.

For each condition, every entry of the board and every Result the overview reads there is
resampled together on the challenge's draws (its seed and number of resamples, the draws of
every interval: ``scoring.stats.resample_entries``), drawn once per build for each number of
dialogues (``scoring.stats.Draws``, which the build keeps and drops), and the same resamples
give:

- the rank groups (``groups``): the adjacent pairs' paired bootstrap p-values;
- each row's rank interval (``scoring.ranking.rank_intervals``), and, from the resampled
  metrics of the overview's Results averaged over the conditions resample by resample, each
  overview row's. The conditions share their draws when they have as many dialogues (the
  weights depend on the count, the number of resamples and the seed only): for DSTC11, whose
  conditions are the same dialogues spoken three ways, resample ``b`` then draws the same
  dialogues in every condition. Conditions with other counts are resampled each with its own
  draws, as independent samples;
- the detectable difference (``scoring.ranking.detectable_difference``): from the adjacent
  pairs' standard errors.

An entry without per-dialogue statistics of the primary metric (not re-scored yet after a
change of the primary metric) or on other dialogues keeps its observed value in every
resample: it takes its place in the others' ranks and gets no interval of its own. An entry
without a value ranks last in every resample. Entries whose denominators depend on the
prediction (F1s) are resampled each with its own numerators and denominators (a ratio of sums
needs nothing else); they get rank intervals, but no paired test, so no group and no
detectable difference.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from leaderboard.rankings.groups import SIGNIFICANCE, labels
from scoring import Resampling
from scoring.ranking import detectable_difference, rank_intervals
from scoring.stats import Draws, resample_entries
from scoring.taskapi import DialogueRatios

#: What the detectable difference is, for the notes that say why a board has none.
NO_PAIR = (
    "No detectable difference: it needs two entries scored on the same dialogues with the "
    "same denominators, which this board does not have."
)
IDENTICAL = (
    "No detectable difference: the entries next to each other here are identical dialogue "
    "by dialogue, so they show nothing of how much scores vary."
)


@dataclass(frozen=True)
class Sample:
    """Entries of one condition resampled together."""

    #: (n_boot x entries) the first ``split`` entries' metric on each resample, and
    #: (``extra``) the others'; a column not resampled repeats its observed value (NaN when
    #: it has none)
    values: Any
    extra: Any
    #: per entry, whether it was resampled
    resampled: tuple[bool, ...]
    #: per pair asked for, its p-value and standard error (NaN: not tested)
    p_values: tuple[float, ...]
    errors: tuple[float, ...]


def _columns(
    found: Any, column_of: Sequence[int], observed: Any, entries: range, n_boot: int
) -> Any:
    """The resampled values of ``entries`` (their columns of ``found``, ``column_of[i]``; -1:
    not resampled, its observed value throughout): a view when they are columns in a row,
    else one gather of whole columns (``numpy.take``; an entry not resampled takes the first
    column, then its observed value)."""
    columns = np.array([column_of[i] for i in entries], dtype=np.intp)
    if len(columns) and columns[0] >= 0:
        run = np.arange(columns[0], columns[0] + len(columns))
        if np.array_equal(columns, run):
            return found[:, columns[0] : columns[0] + len(columns)]
    fixed = np.flatnonzero(columns < 0)
    source = found if found.shape[1] else np.empty((n_boot, 1))
    out = source.take(np.maximum(columns, 0), axis=1)
    out[:, fixed] = observed[np.asarray(entries, dtype=np.intp)[fixed]]
    return out


def sample(
    metric: str,
    points: Sequence[float | None],
    dialogues: Sequence[DialogueRatios | None],
    pairs: Sequence[tuple[int, int]],
    resampling: Resampling,
    draws: Draws,
    split: int | None = None,
) -> Sample:
    """``points`` (each entry's observed value) and ``dialogues`` (its per-dialogue statistics
    of ``metric``, or None) resampled on one set of draws (the build's ``draws``); the entries
    on the dialogues of the first one with statistics are resampled, the others keep their
    observed values. The first ``split`` entries (all by default) are ``values``, the others
    ``extra``."""
    split = len(points) if split is None else split
    ids = next((d.ids for d in dialogues if d is not None and metric in d.columns), None)
    used = [
        d is not None and metric in d.columns and (d.ids is ids or d.ids == ids) for d in dialogues
    ]
    # one column per distinct statistics: the overview's Result on a condition is most often
    # a row of its board, and the same statistics resample the same way
    column_of = [-1] * len(points)
    columns: dict[int, int] = {}
    at: list[int] = []  # the first entry of each column
    for i, u in enumerate(used):
        if u:
            key = id(dialogues[i])
            if key not in columns:
                columns[key] = len(at)
                at.append(i)
            column_of[i] = columns[key]
    observed = np.array([np.nan if p is None else p for p in points], dtype=np.float64)
    tested = [(a, b) for a, b in pairs if used[a] and used[b]]
    n_boot = resampling.n_boot
    found: Any = np.empty((n_boot, 0))
    by_pair: dict[tuple[int, int], tuple[float, float]] = {}
    if at:
        stats = [dialogues[i].columns[metric] for i in at]  # type: ignore[union-attr]  # ``at``: used entries, which have statistics
        resampled = resample_entries(
            [numerators for numerators, _ in stats],
            [denominators for _, denominators in stats],
            [(column_of[a], column_of[b]) for a, b in tested],
            n_boot,
            resampling.seed,
            draws,
        )
        found = resampled.values
        by_pair = dict(
            zip(tested, zip(resampled.p_values, resampled.errors, strict=True), strict=True)
        )
    untested = (float("nan"), float("nan"))
    return Sample(
        values=_columns(found, column_of, observed, range(split), n_boot),
        extra=_columns(found, column_of, observed, range(split, len(points)), n_boot),
        resampled=tuple(used),
        p_values=tuple(by_pair.get(pair, untested)[0] for pair in pairs),
        errors=tuple(by_pair.get(pair, untested)[1] for pair in pairs),
    )


@dataclass(frozen=True)
class ConditionStatistics:
    """What one condition's resamples say of its board."""

    groups: list[str]
    #: each row's rank interval (None: not resampled)
    intervals: list[tuple[int, int] | None]
    detectable: float | None
    detectable_note: str
    #: the board's rows resampled (n_boot x rows), for the shake-up
    values: Any
    #: the overview's Results on this condition resampled (n_boot x overview rows)
    extra: Any


def condition(
    metric: str,
    direction: str,
    ranks: Sequence[int],
    points: Sequence[float | None],
    dialogues: Sequence[DialogueRatios | None],
    extra_points: Sequence[float | None],
    extra_dialogues: Sequence[DialogueRatios | None],
    resampling: Resampling,
    draws: Draws,
) -> ConditionStatistics:
    """The rank groups, rank intervals and detectable difference of a condition's rows (in
    rank order: ``ranks``, ``points``, ``dialogues``), and the resampled values of the
    overview's Results there (``extra_points``, ``extra_dialogues``), on one set of draws."""
    n = len(points)
    pairs = list(itertools.pairwise(range(n)))
    found = sample(
        metric,
        [*points, *extra_points],
        [*dialogues, *extra_dialogues],
        pairs,
        resampling,
        draws,
        n,
    )
    board = found.values
    intervals: list[tuple[int, int] | None] = list(
        rank_intervals(board, direction, resampling.level)
    )
    for i in range(n):
        if not found.resampled[i]:
            intervals[i] = None
    # NaN (not comparable, nothing to count): no tie
    ties = [False] + [bool(p >= SIGNIFICANCE) for p in found.p_values]
    detectable = detectable_difference(found.errors)
    note = ""
    if detectable is None and n > 1:
        tested = [e for e in found.errors if not np.isnan(e)]
        note = IDENTICAL if tested else NO_PAIR
    return ConditionStatistics(
        groups=labels(ranks, ties[:n]),
        intervals=intervals,
        detectable=detectable,
        detectable_note=note,
        values=board,
        extra=found.extra,
    )


def overview_means(per_condition: Sequence[Any], rows: int, n_boot: int) -> Any:
    """The overview rows' means over the conditions, resample by resample, from each
    condition's resampled values of the overview's Results (``ConditionStatistics.extra``,
    n_boot x rows each): NaN for a row missing a condition."""
    if not per_condition:
        return np.full((n_boot, rows), np.nan)
    total = np.array(per_condition[0], dtype=np.float64, copy=True)
    for values in per_condition[1:]:
        total += values
    total /= len(per_condition)
    return total


def overview_intervals(
    means: Any, complete: Sequence[bool], direction: str, level: float
) -> list[tuple[int, int] | None]:
    """Each overview row's rank interval by its resampled mean (``overview_means``), a row
    missing a condition ranking last; ``complete[i]``: row ``i`` was resampled on every
    condition (else it gets none)."""
    if not len(complete):
        return []
    found: list[tuple[int, int] | None] = list(rank_intervals(means, direction, level))
    return [interval if ok else None for interval, ok in zip(found, complete, strict=True)]
