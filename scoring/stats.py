"""Confidence intervals and paired significance tests over dialogues.

Turns of one dialogue are correlated (states are cumulative), so the resampling unit is the
dialogue. Every metric here is a ratio of sums over dialogues, ``sum(numerator) /
sum(denominator)``; resampling draws dialogue indices and recomputes both sums.

The draws are fixed by the seed: ``numpy.random.default_rng(seed).integers(0, n, size=(B, n))``
for the bootstrap, and ``default_rng(seed).integers(0, 2, size=(R, n))`` for the sign flips of
approximate randomisation, so anyone can reproduce an interval from the per-dialogue counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.errors import ScoringError

Counts = npt.NDArray[np.float64]


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


def check_settings(n_boot: int, level: float) -> None:
    if not 1 <= n_boot <= 100_000:
        raise ScoringError("the number of bootstrap resamples must be between 1 and 100000.")
    if not 0.5 <= level < 1:
        raise ScoringError("the confidence level must be at least 0.5 and below 1 (e.g. 0.95).")


def _ratio(numerator: Counts, denominator: Counts) -> Counts:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, 100.0 * numerator / denominator, np.nan)


def _interval(samples: Counts, level: float) -> tuple[float, float]:
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return (float("nan"), float("nan"))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return (float(low), float(high))


def bootstrap_indices(n: int, n_boot: int, seed: int) -> npt.NDArray[np.int64]:
    """The ``(n_boot, n)`` matrix of resampled dialogue indices for ``seed``."""
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def bootstrap_ci(
    pairs: dict[str, tuple[Counts, Counts]], n_boot: int, seed: int, level: float
) -> dict[str, tuple[float, float]]:
    """Percentile bootstrap intervals of ``100 * sum(num) / sum(den)`` for each named metric.

    All metrics share the same resampled dialogues, so their intervals are consistent.
    """
    check_settings(n_boot, level)
    n = len(next(iter(pairs.values()))[0])
    if n == 0:
        return {name: (float("nan"), float("nan")) for name in pairs}
    # Resampling counts per dialogue: one bincount per row, then a matrix product, which is
    # much faster than gathering (n_boot x n) values per metric.
    indices = bootstrap_indices(n, n_boot, seed)
    offsets = (np.arange(n_boot, dtype=np.int64) * n)[:, None]
    weights = np.bincount((indices + offsets).ravel(), minlength=n_boot * n).reshape(n_boot, n)
    weights = weights.astype(np.float64)
    result = {}
    for name, (numerator, denominator) in pairs.items():
        result[name] = _interval(_ratio(weights @ numerator, weights @ denominator), level)
    return result


def paired_test(
    metric: str,
    numerator_a: Counts,
    numerator_b: Counts,
    denominator: Counts,
    n_boot: int,
    seed: int,
    level: float,
) -> PairedTest:
    """Compare A and B, whose metric is ``100 * sum(numerator) / sum(denominator)``.

    The interval of the difference comes from a paired bootstrap over dialogues; the two-sided
    p-value from approximate randomisation (swapping A and B within each dialogue at random),
    ``(1 + #{|d_r| >= |d|}) / (1 + R)``, so identical systems get p = 1.
    """
    check_settings(n_boot, level)
    total = float(denominator.sum())
    if total == 0:
        raise ScoringError(f"{metric} is undefined on this reference (nothing to count).")
    a = 100.0 * float(numerator_a.sum()) / total
    b = 100.0 * float(numerator_b.sum()) / total
    delta = numerator_a - numerator_b
    observed = 100.0 * float(delta.sum()) / total
    n = len(delta)
    intervals = bootstrap_ci({"d": (delta, denominator)}, n_boot, seed, level)
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
