"""Running a task on in-memory data, as the tests do."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from scoring import Resampling, Source, TaskResult, get_task
from scoring.ranking import _packed_places


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


def rank_intervals_counted(values: Any, direction: str, level: float) -> list[tuple[int, int]]:
    """Another exact method for ``scoring.ranking.rank_intervals``: each entry's quantiles read
    from a count of its places (a counting sort: ``np.bincount`` over entry x place, a running
    total, ``searchsorted``) instead of the two global sorts. Not faster where measured
    (``benchmarks/leaderboard.py --rank-intervals-only`` prints both); the tests' second
    computation to agree with."""
    packed = _packed_places(values, direction, level)
    if packed is None:
        return []
    best, worst, low_at, high_at = packed
    rows, entries = best.shape
    # ``totals[e * E + p]``: the (entry, place) pairs up to entry e's place p. Every entry has
    # one place per resample, so entry e's B places come after e * B pairs, and its quantile
    # of 0-based index ``at`` is the first place whose total exceeds e * B + at.
    each = np.arange(entries, dtype=np.int64)
    bounds = []
    for keys, at in ((best, low_at), (worst, high_at)):
        totals = np.bincount(keys.reshape(-1), minlength=entries * entries)
        np.cumsum(totals, out=totals)
        bounds.append(np.searchsorted(totals, each * rows + at, side="right") - each * entries + 1)
    return [(int(a), int(b)) for a, b in zip(*bounds, strict=True)]
