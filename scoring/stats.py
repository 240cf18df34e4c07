"""Confidence intervals and paired significance tests over dialogues.

Turns of one dialogue are correlated (states are cumulative), so the resampling unit is the
dialogue. Every metric here is a ratio of sums over dialogues, ``sum(numerator) /
sum(denominator)``; resampling draws dialogue indices and recomputes both sums.

The draws are fixed by the seed: resample ``b`` of the bootstrap is the ``b``-th call of
``rng.integers(0, n, size=n)`` on ``rng = numpy.random.default_rng(seed)`` (the same numbers as
one ``size=(B, n)`` call), and the sign flips of approximate randomisation are
``default_rng(seed).integers(0, 2, size=(R, n))``; so anyone can reproduce an interval from the
per-dialogue counts. Percentiles interpolate linearly (numpy's default).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from scoring.errors import ScoringError

if TYPE_CHECKING:  # annotations only: numpy.typing costs a short process ~20 ms to import
    import numpy.typing as npt

    Counts = npt.NDArray[np.float64]
    IndexBlock = npt.NDArray[np.int64]


@dataclass(frozen=True)
class PairedTest:
    """Outcome of comparing system A with system B on the same reference (A minus B)."""

    metric: str
    a: float
    b: float
    difference: float
    ci: tuple[float, float]
    p_value: float
    significant: bool
    method: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "difference": self.difference,
            "ci": list(self.ci),
            "p_value": self.p_value,
            "significant": self.significant,
            "method": self.method,
        }


def _ratio(numerator: Counts, denominator: Counts) -> Counts:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, 100.0 * numerator / denominator, np.nan)


def _interval(samples: Counts, level: float) -> tuple[float, float]:
    finite = np.sort(samples[np.isfinite(samples)])
    if finite.size == 0:
        return (float("nan"), float("nan"))
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(finite, [tail, 100 - tail])
    return (float(low), float(high))


#: Resamples drawn at a time: the same draws as one (n_boot x n) call, in bounded memory.
_BLOCK_ROWS = 100


def _index_blocks(n: int, n_boot: int, seed: int) -> list[tuple[int, IndexBlock]]:
    """(first row, rows of resampled dialogue indices), drawn row after row."""
    rng = np.random.default_rng(seed)
    return [
        (start, rng.integers(0, n, size=(min(_BLOCK_ROWS, n_boot - start), n)))
        for start in range(0, n_boot, _BLOCK_ROWS)
    ]


def bootstrap_ci(
    pairs: Mapping[str, tuple[Sequence[float] | Counts, Sequence[float] | Counts]],
    n_boot: int,
    seed: int,
    level: float,
) -> dict[str, tuple[float, float]]:
    """Percentile bootstrap intervals of ``100 * sum(num) / sum(den)`` for each named metric.

    All metrics share the same resampled dialogues, so their intervals are consistent.
    """
    n = len(next(iter(pairs.values()))[0])
    if n == 0:
        return {name: (float("nan"), float("nan")) for name in pairs}
    columns = [np.asarray(c, dtype=np.float64) for pair in pairs.values() for c in pair]
    sums = [np.empty(n_boot) for _ in columns]
    # Resample in blocks of rows: the same draws as one (n_boot x n) call, in a working set
    # that stays in the processor's cache.
    for start, indices in _index_blocks(n, n_boot, seed):
        stop = start + len(indices)
        for column, total in zip(columns, sums, strict=True):
            np.take(column, indices).sum(axis=1, out=total[start:stop])
    result = {}
    for position, name in enumerate(pairs):
        numerator, denominator = sums[2 * position], sums[2 * position + 1]
        result[name] = _interval(_ratio(numerator, denominator), level)
    return result


def paired_test(
    metric: str,
    numerator_a: Sequence[float] | Counts,
    numerator_b: Sequence[float] | Counts,
    denominator: Sequence[float] | Counts,
    n_boot: int,
    seed: int,
    level: float,
) -> PairedTest:
    """Compare A and B, whose metric is ``100 * sum(numerator) / sum(denominator)``.

    The interval of the difference comes from a paired bootstrap over dialogues; the two-sided
    p-value from approximate randomisation (swapping A and B within each dialogue at random),
    ``(1 + #{|d_r| >= |d|}) / (1 + R)``, so identical systems get p = 1.
    """
    num_a = np.asarray(numerator_a, dtype=np.float64)
    num_b = np.asarray(numerator_b, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    total = float(den.sum())
    if total == 0:
        raise ScoringError(f"{metric} is undefined on this reference (nothing to count).")
    a = 100.0 * float(num_a.sum()) / total
    b = 100.0 * float(num_b.sum()) / total
    delta = num_a - num_b
    observed = 100.0 * float(delta.sum()) / total
    n = len(delta)
    intervals = bootstrap_ci({"d": (delta, den)}, n_boot, seed, level)
    signs = np.random.default_rng(seed).integers(0, 2, size=(n_boot, n)) * 2 - 1
    shuffled = np.abs(100.0 * (signs @ delta) / total)
    # A small tolerance keeps floating-point noise from deciding ties.
    extreme = int(np.count_nonzero(shuffled >= abs(observed) - 1e-9))
    p_value = (1 + extreme) / (1 + n_boot)
    return PairedTest(
        metric=metric,
        a=a,
        b=b,
        difference=observed,
        ci=intervals["d"],
        p_value=p_value,
        significant=p_value < 0.05,
        method=f"approximate-randomisation-{n_boot}-dialogue",
    )


def paired_p_values(
    numerators_a: Sequence[Sequence[float]],
    numerators_b: Sequence[Sequence[float]],
    denominator: Sequence[float],
    n_boot: int,
    seed: int,
) -> list[float]:
    """The p-values of :func:`paired_test` for many pairs (A_k, B_k) on one reference at once.

    Pair ``k`` gives exactly ``paired_test(m, numerators_a[k], numerators_b[k], denominator,
    n_boot, seed, level).p_value``: the same sign flips (one draw for every pair) applied to
    each pair's per-dialogue differences, in a single matrix product. Counts are whole
    numbers, so every sum is exact and the order of summation cannot change a p-value. A
    leaderboard with hundreds of entries gets its rank groups in one call instead of hundreds.
    """
    den = np.asarray(denominator, dtype=np.float64)
    total = float(den.sum())
    if total == 0:
        raise ScoringError("the metric is undefined on this reference (nothing to count).")
    deltas = np.asarray(numerators_a, dtype=np.float64) - np.asarray(numerators_b, dtype=np.float64)
    if deltas.size == 0:
        return []
    deltas = deltas.reshape(len(numerators_a), den.size)
    observed = np.abs(100.0 * deltas.sum(axis=1) / total)
    signs = np.random.default_rng(seed).integers(0, 2, size=(n_boot, den.size)) * 2 - 1
    shuffled = np.abs(100.0 * (signs @ deltas.T) / total)  # (n_boot, pairs)
    extreme = np.count_nonzero(shuffled >= observed - 1e-9, axis=0)
    return [float(p) for p in (1 + extreme) / (1 + n_boot)]
