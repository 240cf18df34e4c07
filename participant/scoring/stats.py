"""Confidence intervals and paired significance tests over dialogues.

Turns of one dialogue are correlated (states are cumulative), so the resampling unit is the
dialogue. Every metric here is a ratio of sums over dialogues, ``sum(numerator) /
sum(denominator)``; resampling draws dialogue indices and recomputes both sums.

The draws are fixed by the seed and made here from the raw output of numpy's PCG64 bit
generator, whose stream numpy keeps from release to release (its ``Generator`` methods'
streams it does not promise): ``raw = numpy.random.PCG64(seed).random_raw(count)``, 64-bit
unsigned integers. Value ``i`` of that stream, ``r``, draws the dialogue index
``floor(r * n / 2**64)`` (Lemire's multiply-high, without rejection: each of the ``n``
indices is drawn with a probability within ``2**-64`` of ``1 / n``, a bias below ``n / 2**64``
per draw), computed exactly in 64-bit arithmetic (:func:`draw_indices`); dialogue ``j`` of
resample ``b`` of the bootstrap is value ``b * n + j`` of the stream. The sign flips of
approximate randomisation come from a fresh ``PCG64(seed)`` stream: value ``b * n + j``'s top
bit, ``r >> 63``, keeps A and B of dialogue ``j`` in randomisation ``b`` where it is 1 and
swaps them where it is 0 (:func:`draw_signs`). So anyone can reproduce an interval from the
per-dialogue counts and the PCG64 stream alone. Percentiles interpolate linearly (numpy's
default).

A leaderboard resamples many entries on one reference at once (:func:`resample_entries`,
behind its rank groups' :func:`bootstrap_p_values`, its rank intervals and its detectable
difference, ``scoring.ranking``): the bootstrap's resamples, as counts of each dialogue
(:func:`resample_weights`), are shared by every entry, so all entries' resampled sums are one
matrix product.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from scoring.errors import ScoringError

if TYPE_CHECKING:  # annotations only: numpy.typing costs a short process ~20 ms to import
    import numpy.typing as npt

    Counts = npt.NDArray[np.float64]
    IndexBlock = npt.NDArray[np.int64]
    Signs = npt.NDArray[np.int8]
    Weights = npt.NDArray[np.float32]
    Block = npt.NDArray[Any]


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


def percentile_interval(samples: Counts, level: float) -> tuple[float, float]:
    """The central ``level`` interval of the finite ``samples`` (percentiles with linear
    interpolation, numpy's default), as every bootstrap interval here is taken."""
    return _interval(samples, level)


def _interval(samples: Counts, level: float) -> tuple[float, float]:
    finite = np.sort(samples[np.isfinite(samples)])
    if finite.size == 0:
        return (float("nan"), float("nan"))
    tail = 100 * (1 - level) / 2
    return (sorted_percentile(finite, tail), sorted_percentile(finite, 100 - tail))


def sorted_percentile(ordered: Counts, percent: float) -> float:
    """The ``percent`` percentile of the sorted, non-empty ``ordered``, by numpy's default
    ("linear") method and with its very operations, so the same bits as ``np.percentile``:
    the position ``(n - 1) * percent / 100``, then ``a + (b - a) * t`` between its neighbours,
    or ``b - (b - a) * (1 - t)`` from the upper one when ``t >= 0.5``. Without sorting what is
    sorted again, nor importing ``numpy.ma`` as ``np.percentile`` does (a tenth of a short
    command's time)."""
    last = ordered.size - 1
    position = last * (percent / 100)
    if position >= last:
        return float(ordered[last])
    if position < 0:
        return float(ordered[0])
    low = math.floor(position)
    t = np.float64(position - low)
    a, b = ordered[low], ordered[low + 1]
    gap = b - a
    return float(b - gap * (1 - t) if t >= 0.5 else a + gap * t)


#: Resamples drawn at a time: the same draws as all at once, in bounded memory.
_BLOCK_ROWS = 100
#: Dialogues a draw can index: the multiply-high below is exact for fewer than 2**32.
_MOST_DIALOGUES = 2**32 - 1
_LOW_HALF = np.uint64(0xFFFFFFFF)
_HALF = np.uint64(32)
#: Values computed at a time (128 KiB of scratch).
_CHUNK = 1 << 14


def draw_indices(n: int, seed: int, first: int, count: int) -> IndexBlock:
    """Values ``first`` .. ``first + count - 1`` of the bootstrap's stream of dialogue indices
    in ``[0, n)``: raw value ``r`` of ``PCG64(seed)`` (the same position in its stream) draws
    ``floor(r * n / 2**64)``. Dialogue ``j`` of resample ``b`` is value ``b * n + j``, so a
    block of rows draws the same numbers as all rows at once. Every resample of the scorer is
    drawn here.

    The product ``r * n`` needs 96 bits; with ``r = hi * 2**32 + lo`` (its 32-bit halves) the
    floor is ``(hi * n + (lo * n >> 32)) >> 32``, whose every term fits in 64 bits while
    ``n < 2**32``. Indices are int64 (numpy's index type), viewed without a copy."""
    if not 0 <= n <= _MOST_DIALOGUES:
        raise ScoringError(f"resampling draws from 0 to {_MOST_DIALOGUES} dialogues, not {n}.")
    bits = np.random.PCG64(seed)
    if first:
        bits.advance(first)  # as if ``first`` raw values had been drawn
    raw = bits.random_raw(count)
    size = np.uint64(n)
    low = np.empty(min(count, _CHUNK), dtype=np.uint64)
    # In chunks that stay in the processor's cache, in place: each value's low half times n,
    # shifted; then its high half times n, plus that, shifted.
    for start in range(0, count, _CHUNK):
        chunk = raw[start : start + _CHUNK]
        part = low[: len(chunk)]
        np.bitwise_and(chunk, _LOW_HALF, out=part)
        part *= size
        part >>= _HALF
        chunk >>= _HALF
        chunk *= size
        chunk += part
        chunk >>= _HALF
    indices: IndexBlock = raw.view(np.int64)
    return indices


def _resamples(n: int, seed: int, start: int, rows: int) -> IndexBlock:
    """Resamples ``start`` .. ``start + rows - 1`` of ``n`` dialogues, one row each."""
    return draw_indices(n, seed, start * n, rows * n).reshape(rows, n)


def draw_signs(n: int, n_boot: int, seed: int) -> Signs:
    """Approximate randomisation's (n_boot x n) signs: ``+1`` keeps A and B of a dialogue,
    ``-1`` swaps them. Randomisation ``b``, dialogue ``j``: the top bit of raw value
    ``b * n + j`` of a fresh ``PCG64(seed)``, as ``2 * bit - 1``."""
    raw = np.random.PCG64(seed).random_raw(n_boot * n).reshape(n_boot, n)
    top = raw.view(np.int64) < 0  # the top bit set: the sign bit of the same 64 bits
    signs: Signs = top.view(np.int8) * np.int8(2)
    signs -= 1
    return signs


def _index_blocks(n: int, n_boot: int, seed: int) -> list[tuple[int, IndexBlock]]:
    """(first row, rows of resampled dialogue indices), drawn row after row."""
    return [
        (start, _resamples(n, seed, start, min(_BLOCK_ROWS, n_boot - start)))
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
    # Resample in blocks of rows: the same draws as all rows at once, in a working set that
    # stays in the processor's cache.
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
    signs = draw_signs(n, n_boot, seed)
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


#: Cells of the resample-weight matrix drawn at a time: the default settings (1,000 resamples
#: of up to 4,000 dialogues) make one block; larger ones are drawn in blocks of rows.
_WEIGHT_CELLS = 1 << 22
#: Differences within this of zero are zero (floating-point noise of fractional counts).
_TOLERANCE = 1e-9


def resample_weights(n: int, n_boot: int, seed: int) -> Iterator[tuple[int, Weights]]:
    """The bootstrap's resamples of ``n`` dialogues as weights, block after block of rows:
    (first row, ``W[rows]``), where ``W[b, j]`` counts the draws of dialogue ``j`` in resample
    ``b``. The draws are those of :func:`bootstrap_ci`: resample ``b`` is values ``b * n`` ..
    ``b * n + n - 1`` of :func:`draw_indices`. Counts are whole numbers of at most ``n``,
    exact in float32."""
    rows = max(1, min(n_boot, _WEIGHT_CELLS // max(n, 1)))
    for start in range(0, n_boot, rows):
        count = min(rows, n_boot - start)
        # One bincount counts every row: row r's draws are offset by r * n.
        draws = _resamples(n, seed, start, count)
        draws += np.arange(0, count * n, n)[:, np.newaxis]
        counts = np.bincount(draws.reshape(-1), minlength=count * n)
        yield start, counts.reshape(count, n).astype(np.float32)


class Draws:
    """The bootstrap's resamples (:func:`resample_weights`) of a number of dialogues, drawn
    once and shared by every :func:`resample_entries` given this object: a board draws the
    resamples of its conditions of the same size once (DSTC11's three conditions are the same
    1,000 dialogues), not once per condition. It keeps what it drew for as long as it lives
    (``n_boot`` x ``n`` float32 per size: 4 MB for 1,000 resamples of 1,000 dialogues), so
    it lives as long as one build."""

    def __init__(self, n_boot: int, seed: int) -> None:
        self.n_boot = n_boot
        self.seed = seed
        self._drawn: dict[int, list[tuple[int, Weights]]] = {}

    def weights(self, n: int) -> list[tuple[int, Weights]]:
        """``resample_weights(n, n_boot, seed)``'s blocks, drawn on the first call for ``n``."""
        found = self._drawn.get(n)
        if found is None:
            found = self._drawn[n] = list(resample_weights(n, self.n_boot, self.seed))
        return found


def _rows(columns: Sequence[Sequence[float] | Counts], n: int | None = None) -> Block:
    """``columns`` (one per entry, one value per dialogue) as one (entries x n dialogues)
    array, of the narrowest type that holds them all (stored counts stay small integers)."""
    rows = np.stack([np.asarray(c) for c in columns])
    if rows.ndim != 2 or (n is not None and rows.shape[1] != n):
        raise ScoringError("every entry needs one number per dialogue.")
    return rows


def _summable_in_float32(rows: Block) -> bool:
    """Whether every resampled sum of a row of ``rows`` is exact in float32: whole numbers
    whose resampled sums (at most ``n`` times the largest magnitude, as a resample draws ``n``
    dialogues) stay below 2**24, so no product or partial sum is ever rounded, whatever order
    the matrix product adds them in."""
    if rows.size == 0:
        return True
    whole = rows.dtype.kind in "biu" or bool(np.array_equal(rows, np.trunc(rows)))
    largest = max(abs(float(rows.min())), abs(float(rows.max())))
    return whole and rows.shape[1] * largest < 2**24


def bootstrap_p_values(
    numerators: Sequence[Sequence[float] | Counts],
    denominators: Sequence[Sequence[float] | Counts],
    pairs: Sequence[tuple[int, int]],
    n_boot: int,
    seed: int,
) -> list[float]:
    """Paired bootstrap p-values of many pairs of entries on one reference, from one shared set
    of resamples of the dialogues (:func:`resample_entries`, which gives the rest of what the
    same resamples tell: every entry's resampled metric and each pair's standard error)."""
    if not pairs:
        return []
    return list(resample_entries(numerators, denominators, pairs, n_boot, seed).p_values)


def _adjacent(first: npt.NDArray[np.intp], second: npt.NDArray[np.intp]) -> slice | None:
    """The slice of ``first`` when the pairs are ``(i, i + 1)`` for consecutive ``i`` (a
    board's adjacent entries), so that both sides are views of the same columns."""
    if not len(first):
        return None
    run = slice(int(first[0]), int(first[0]) + len(first))
    if np.array_equal(first, np.arange(run.start, run.stop)) and np.array_equal(second, first + 1):
        return run
    return None


def _spread(values: Block, first: npt.NDArray[np.intp], second: npt.NDArray[np.intp]) -> Block:
    """The sample standard deviation (``n - 1``) over the resamples of ``d*`` of each pair,
    the difference of its two entries' resampled metrics (NaN on a resample with nothing to
    count, left out). Adjacent entries in order (a board's pairs) are two views of
    ``values``, not copies."""
    adjacent = _adjacent(first, second)
    if adjacent is not None:
        gaps = values[:, adjacent] - values[:, adjacent.start + 1 : adjacent.stop + 1]
    else:
        gaps = values[:, first] - values[:, second]
    if np.isnan(gaps).any():
        spread: Block = np.nanstd(gaps, axis=0, ddof=1)
        return spread
    # two passes, in place: the mean, then the squared deviations from it
    gaps -= gaps.mean(axis=0)
    squares: Block = np.einsum("ij,ij->j", gaps, gaps)
    return np.sqrt(squares / (len(gaps) - 1))


@dataclass(frozen=True)
class Resampled:
    """Every entry of one reference on one shared set of resamples (:func:`resample_entries`)."""

    #: (n_boot x entries): entry ``e``'s metric recomputed on resample ``b``,
    #: ``100 * (W @ N)[b, e] / (W @ D_e)[b]``; NaN where its resampled denominators sum to 0
    values: Block
    #: per pair, the two-sided paired bootstrap p-value (NaN: not comparable, nothing counted)
    p_values: tuple[float, ...]
    #: per pair, the bootstrap standard error of the difference: the sample standard deviation
    #: (one degree of freedom less) of ``d*`` over the resamples with something to count (NaN
    #: where the pair does not share its denominators, or fewer than two resamples count)
    errors: tuple[float, ...]


def resample_entries(
    numerators: Sequence[Sequence[float] | Counts],
    denominators: Sequence[Sequence[float] | Counts],
    pairs: Sequence[tuple[int, int]],
    n_boot: int,
    seed: int,
    draws: Draws | None = None,
) -> Resampled:
    """Many entries on one reference resampled together, with one shared set of resamples of
    the dialogues (``draws``: resamples drawn already with the same ``n_boot`` and ``seed``,
    shared with other calls).

    Entry ``e``'s metric is ``100 * sum(numerators[e]) / sum(denominators[e])`` over the same
    ``n`` dialogues (finite numbers, denominators at least 0). With ``W`` the resamples as
    weights (:func:`resample_weights`: the draws of :func:`bootstrap_ci`), ``N`` the
    (n x entries) numerators and ``D`` the distinct denominators, every entry's resampled
    metric is ``100 * (W @ N) / (W @ D)``: one matrix product for all entries, whatever their
    denominators (each entry divides by its own). For each pair ``(a, b)`` that shares its
    denominators, ``d*`` is a's resampled metric minus b's, resample by resample,
    ``100 * ((W @ N)[:, a] - (W @ N)[:, b]) / (W @ D)``, and its two-sided p-value is

        p = min(1, 2 * min(P(d* <= 0), P(d* >= 0)))

    over the resamples: a difference within 1e-9 of zero counts as zero on both sides, so
    identical entries get p = 1; a resample whose denominators sum to zero is left out (the
    division by that positive sum, which cannot change a sign, is not made). A pair whose
    denominators differ (F1 scores count predictions) or whose resamples are all empty gets
    NaN. Whole-number counts are summed exactly in float32 (``_summable_in_float32``),
    others in float64.
    """
    if draws is None:
        draws = Draws(n_boot, seed)
    elif (draws.n_boot, draws.seed) != (n_boot, seed):
        raise ScoringError("the shared resamples were drawn with another count or seed.")
    counts = _rows(numerators)
    entries, n = counts.shape
    totals = _rows(denominators, n)
    if len(totals) != entries:
        raise ScoringError("every entry needs its numerators and its denominators.")
    nothing = tuple(float("nan") for _ in pairs)
    if n == 0:
        return Resampled(np.full((n_boot, entries), np.nan), nothing, nothing)
    # The distinct denominators (usually one: every entry counts the same turns), by their bytes.
    distinct: dict[bytes, int] = {}
    which = np.array([distinct.setdefault(row.tobytes(), len(distinct)) for row in totals])
    firsts = np.unique(which, return_index=True)[1]
    first = np.array([a for a, _ in pairs], dtype=np.intp)
    second = np.array([b for _, b in pairs], dtype=np.intp)
    share = which[first] == which[second]
    dtype = (
        np.float32 if _summable_in_float32(counts) and _summable_in_float32(totals) else np.float64
    )
    # (n x entries) and (n x distinct denominators), in float32 or float64 as ``dtype`` says
    counts_t: npt.NDArray[Any] = counts.T.astype(dtype)
    totals_t: npt.NDArray[Any] = totals[firsts].T.astype(dtype)
    values = np.empty((n_boot, entries))
    below = np.zeros(len(pairs))
    above = np.zeros(len(pairs))
    usable = np.zeros(len(pairs))
    base_of = which[first]
    shared = len(firsts) == 1  # one denominator for all: every pair's is the one column
    adjacent = _adjacent(first, second)  # a board's pairs (i, i + 1): views, not copies
    for start, weights in draws.weights(n):
        stop = start + len(weights)
        resampled: npt.NDArray[Any] = weights.astype(dtype, copy=False)
        sums = resampled @ counts_t  # every entry's resampled numerators
        all_bases = resampled @ totals_t
        own = all_bases if shared else all_bases[:, which]  # each entry's denominator sum
        empty = not (own > 0).all()
        with np.errstate(divide="ignore", invalid="ignore"):
            if shared:  # one division per resample, then a product for every entry
                np.multiply(sums, 100.0 / own.astype(np.float64), out=values[start:stop])
            else:
                np.divide(np.multiply(sums, 100.0, dtype=np.float64), own, out=values[start:stop])
        if empty:
            values[start:stop][np.broadcast_to(own <= 0, (stop - start, entries))] = np.nan
        if not len(pairs):
            continue
        bases = all_bases if shared else all_bases[:, base_of]  # each pair's denominator sum
        # d* = 100 * (sums[a] - sums[b]) / base for a pair that shares its denominators: the
        # sign of the numerators' difference, on the resamples with something to count
        if adjacent is not None:
            gaps = sums[:, adjacent] - sums[:, adjacent.start + 1 : adjacent.stop + 1]
        else:
            gaps = sums[:, first] - sums[:, second]
        tolerance = bases * (_TOLERANCE / 100)
        if empty:
            counted = np.broadcast_to(bases > 0, gaps.shape)
            below += np.count_nonzero(counted & (gaps <= tolerance), axis=0)
            above += np.count_nonzero(counted & (gaps >= -tolerance), axis=0)
            usable += np.count_nonzero(counted, axis=0)
        else:  # something to count on every resample (the usual case)
            below += np.count_nonzero(gaps <= tolerance, axis=0)
            above += np.count_nonzero(gaps >= -tolerance, axis=0)
            usable += stop - start
    with np.errstate(divide="ignore", invalid="ignore"):
        p_values = np.minimum(1.0, 2.0 * np.minimum(below, above) / usable)
    p_values[~share | (usable == 0)] = np.nan
    errors = np.full(len(pairs), np.nan)
    tested = share & (usable >= 2)
    if tested.any():
        errors[tested] = _spread(values, first[tested], second[tested])
    return Resampled(values, tuple(float(p) for p in p_values), tuple(float(e) for e in errors))
