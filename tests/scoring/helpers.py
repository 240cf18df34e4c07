"""Running a task on in-memory data, as the tests do."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from scoring import Resampling, Source, TaskResult, get_task


def data(value: Any) -> bytes:
    """Bytes of a file: given bytes as they are, anything else as JSON."""
    return value if isinstance(value, bytes) else json.dumps(value).encode()


def reference(
    gold: Any,
    task: str = "dstc11",
    options: Mapping[str, str] | None = None,
    files: Mapping[str, Any] | None = None,
    name: str = "gold.json",
) -> Any:
    sources = {key: Source(data(value), f"{key}.json") for key, value in (files or {}).items()}
    return get_task(task).load_reference(Source(data(gold), name), sources, options)


def prediction(
    pred: Any,
    loaded: Any,
    task: str = "dstc11",
    options: Mapping[str, str] | None = None,
    name: str = "run.json",
) -> Any:
    return get_task(task).load_prediction(Source(data(pred), name), loaded, options)


def score(
    gold: Any,
    pred: Any,
    task: str = "dstc11",
    options: Mapping[str, str] | None = None,
    resampling: Resampling | None = None,
    files: Mapping[str, Any] | None = None,
) -> TaskResult:
    """Load both files with the task and score the prediction."""
    loaded = reference(gold, task, options, files)
    return get_task(task).score(
        loaded, prediction(pred, loaded, task, options), options, resampling
    )


def index_stream(n: int, seed: int, count: int) -> list[int]:
    """The first ``count`` dialogue indices of the bootstrap's stream as docs/scoring.md
    defines them, in plain Python integers: raw value ``r`` of ``PCG64(seed)`` draws
    ``floor(r * n / 2**64)``. Written apart from ``scoring.stats``' 64-bit arithmetic."""
    return [(int(raw) * n) >> 64 for raw in np.random.PCG64(seed).random_raw(count).tolist()]


def resample_indices(n: int, n_boot: int, seed: int) -> list[list[int]]:
    """The bootstrap's resamples as docs/scoring.md defines them: dialogue ``j`` of resample
    ``b`` is value ``b * n + j`` of :func:`index_stream`."""
    stream = index_stream(n, seed, n_boot * n)
    return [stream[b * n : (b + 1) * n] for b in range(n_boot)]


def sign_flips(n: int, n_boot: int, seed: int) -> list[list[int]]:
    """Approximate randomisation's signs as docs/scoring.md defines them: ``2 * bit - 1`` with
    ``bit`` the top bit of raw value ``b * n + j`` of ``PCG64(seed)`` (+1 keeps A - B)."""
    raws = np.random.PCG64(seed).random_raw(n_boot * n).tolist()
    stream = [2 * (int(raw) >> 63) - 1 for raw in raws]
    return [stream[b * n : (b + 1) * n] for b in range(n_boot)]


#: Values within this many points of each other are equal, as ``scoring.ranking`` says.
TOLERANCE = 1e-9


def _tail_index(rows: int, quantile: float) -> int:
    """The 0-based index of the ``inverted_cdf`` ``quantile`` of ``rows`` sorted values."""
    return min(rows, max(1, math.ceil(rows * quantile - 1e-9))) - 1


def rank_intervals_sorted(values: Any, direction: str, level: float) -> list[tuple[int, int]]:
    """Another exact method for ``scoring.ranking.rank_intervals`` (its implementation until
    the order statistics were selected per entry): each resample's groups of equal values
    found with running maxima and minima of their places, every (entry, place) of the
    resamples packed into one number, ``entry * E + place``, and each entry's quantiles read
    from two global sorts of those numbers. The tests' second computation to agree with."""
    if direction not in ("higher", "lower"):
        raise ValueError(direction)
    values = np.asarray(values, dtype=np.float64)
    rows, entries = values.shape
    if rows == 0 or entries == 0:
        return []
    places = np.arange(entries, dtype=np.int64)
    keys = np.negative(values) if direction == "higher" else values.copy()
    keys[np.isnan(keys)] = np.inf
    order = np.argsort(keys, axis=1)
    ordered = np.take_along_axis(keys, order, axis=1)
    fresh = np.ones(keys.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        fresh[:, 1:] = (ordered[:, 1:] - ordered[:, :-1]) > TOLERANCE
    # each place's group: its first place by a running maximum, its last by a running minimum
    # from the row's end
    first = np.maximum.accumulate(np.where(fresh, places, 0), axis=1)
    last = np.full(keys.shape, entries - 1, dtype=np.int64)
    last[:, :-1] = np.where(fresh[:, 1:], places[:-1], entries - 1)
    last = np.minimum.accumulate(last[:, ::-1], axis=1)[:, ::-1]
    best = (order * entries + first).reshape(-1)
    worst = (order * entries + last).reshape(-1)
    # sorted, entry e's B places lie in order at [e * B, (e + 1) * B)
    starts = places * entries
    low = np.sort(best)[_tail_index(rows, (1 - level) / 2) :: rows] - starts + 1
    high = np.sort(worst)[_tail_index(rows, (1 + level) / 2) :: rows] - starts + 1
    return [(int(a), int(b)) for a, b in zip(low, high, strict=True)]


def rank_bounds_loop(values: Any, direction: str) -> tuple[list[list[int]], list[list[int]]]:
    """``scoring.ranking.rank_bounds`` in plain Python, resample by resample: the entries
    sorted best first (no value: last), a new group wherever the next value is more than the
    tolerance worse than the one before it; each entry's best rank the first place of its
    group, its worst the last (from 1)."""
    best, worst = [], []
    for row in np.asarray(values, dtype=np.float64).tolist():
        keys = [math.inf if math.isnan(v) else (-v if direction == "higher" else v) for v in row]
        ordered = sorted(range(len(keys)), key=lambda e: keys[e])
        groups: list[list[int]] = []
        for place, e in enumerate(ordered):
            previous = keys[ordered[place - 1]] if place else None
            if previous is None or (keys[e] != previous and keys[e] - previous > TOLERANCE):
                groups.append([])
            groups[-1].append(place)
        best_row, worst_row = [0] * len(keys), [0] * len(keys)
        for group in groups:
            for place in group:
                best_row[ordered[place]] = group[0] + 1
                worst_row[ordered[place]] = group[-1] + 1
        best.append(best_row)
        worst.append(worst_row)
    return best, worst
