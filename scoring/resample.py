"""Bootstrap intervals without numpy, from resample counts drawn once (the command line's cache).

:func:`scoring.stats.bootstrap_ci` draws, for resample ``b``, ``n`` dialogue indices; call
``C[b][i]`` the number of times dialogue ``i`` is drawn. A resampled sum of a per-dialogue
column ``x`` is then ``S[b] = sum_i C[b][i] * x[i]``. Packing dialogue ``i``'s counts over all
resamples into one integer, a field of ``W`` bits per resample (``P[i] = sum_b C[b][i] << W*b``),
gives every ``S[b]`` at once as the fields of ``sum_i x[i] * P[i]``: ``n`` big-integer
multiply-adds instead of ``n * n_boot`` array reads, and no numpy to import. The counts are
whole numbers, so every sum is exact; the ratios and percentiles then use the very
floating-point operations of :mod:`scoring.stats`, so the intervals are identical (tested).

:class:`Draws` holds ``C`` for one ``(n, n_boot, seed)``, column by column, one byte per count,
as :func:`scoring.stats.resample_counts` gives it.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from scoring.settings import check_settings

if TYPE_CHECKING:
    from scoring.stats import PairedTest

#: Field widths in bytes -> the unsigned array type of that size.
_FIELDS = {
    size: next(code for code in "BHILQ" if array(code).itemsize == size) for size in (1, 2, 4, 8)
}


class Draws:
    """The resample counts of one ``(n, n_boot, seed)``: ``counts[i * n_boot + b] = C[b][i]``."""

    def __init__(self, n: int, n_boot: int, seed: int, counts: bytes) -> None:
        if len(counts) != n * n_boot:
            raise ValueError("the counts do not match n and n_boot")
        self.n = n
        self.n_boot = n_boot
        self.seed = seed
        self.counts = counts
        self._by_width: dict[int, list[int]] = {}

    def sums(self, columns: Sequence[Sequence[float]]) -> list[list[int]] | None:
        """``S[b]`` of each column for every resample, or None when a column is not made of
        non-negative whole numbers, one per dialogue (the caller then uses numpy)."""
        n, n_boot = self.n, self.n_boot
        largest = 0
        for column in columns:
            if len(column) != n:
                return None
            for x in column:
                if type(x) is not int or x < 0:
                    return None
            largest = max(largest, int(max(column, default=0)))
        # Every S[b] is at most n * largest: the narrowest field that holds it will do.
        need = max(1, (n * largest).bit_length())
        width = next((w for w in _FIELDS if need <= 8 * w), 0)
        if not width:
            return None
        packed = self._packed(width)
        result = []
        for column in columns:
            # Dialogues with the same value share one multiplication: sum_v v * sum(P[i]).
            by_value: dict[int, int] = {}
            for x, p in zip(cast("Sequence[int]", column), packed, strict=True):
                if x:
                    same = by_value.get(x)
                    by_value[x] = p if same is None else same + p
            total = 0
            for value, p in by_value.items():
                total += value * p
            fields = array(_FIELDS[width], total.to_bytes(n_boot * width, "little"))
            if sys.byteorder == "big":
                fields.byteswap()
            result.append(fields.tolist())
        return result

    def _packed(self, width: int) -> list[int]:
        """``P[i]`` for every dialogue, with fields of ``width`` bytes."""
        cached = self._by_width.get(width)
        if cached is None:
            n_boot, counts = self.n_boot, self.counts
            lane = bytearray(n_boot * width)
            cached = []
            for start in range(0, len(counts), n_boot):
                # Dialogue i's counts, one byte at the bottom of each field (little-endian).
                lane[::width] = counts[start : start + n_boot]
                cached.append(int.from_bytes(lane, "little"))
            self._by_width[width] = cached
        return cached


def bootstrap_ci(
    draws: Draws,
    pairs: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    n_boot: int,
    seed: int,
    level: float,
) -> dict[str, tuple[float, float]] | None:
    """:func:`scoring.stats.bootstrap_ci` of non-negative whole-number columns, or None when
    the draws or the columns do not allow it."""
    check_settings(n_boot, level)
    if (n_boot, seed) != (draws.n_boot, draws.seed):
        return None
    n = len(next(iter(pairs.values()))[0])
    if n == 0:
        return {name: (math.nan, math.nan) for name in pairs}
    sums = draws.sums([column for pair in pairs.values() for column in pair])
    if sums is None:
        return None
    result = {}
    for position, name in enumerate(pairs):
        numerator, denominator = sums[2 * position], sums[2 * position + 1]
        # scoring.stats: 100 * numerator / denominator where the denominator is positive.
        ratios = [100.0 * a / b for a, b in zip(numerator, denominator, strict=True) if b > 0]
        result[name] = _interval(sorted(ratios), level)
    return result


def _interval(ordered: list[float], level: float) -> tuple[float, float]:
    if not ordered:
        return (math.nan, math.nan)
    tail = (1 - level) / 2
    return (_quantile(ordered, tail), _quantile(ordered, 1 - tail))


def _quantile(ordered: list[float], q: float) -> float:
    # The same operations as scoring.stats._quantile, on the same float64 values.
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


class PackedStatistics:
    """The statistics protocol of :mod:`scoring.results`: intervals from cached draws where
    they apply, :mod:`scoring.stats` (numpy) for everything else."""

    def __init__(self, draws: Draws) -> None:
        self._draws = draws

    def bootstrap_ci(
        self,
        pairs: dict[str, tuple[Sequence[float], Sequence[float]]],
        n_boot: int,
        seed: int,
        level: float,
    ) -> dict[str, tuple[float, float]]:
        result = bootstrap_ci(self._draws, pairs, n_boot, seed, level)
        if result is None:
            from scoring import stats

            return stats.bootstrap_ci(pairs, n_boot, seed, level)
        return result

    def paired_test(self, *args: Any) -> PairedTest:
        from scoring import stats

        test: Callable[..., PairedTest] = stats.paired_test
        return test(*args)
