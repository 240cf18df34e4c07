"""How certain a leaderboard's ranking is, from its entries' resampled metrics.

Every function here reads what one shared set of bootstrap resamples of the dialogues gives
(``scoring.stats.resample_entries``: ``values[b, e]``, entry ``e``'s metric on resample ``b``),
so the rank groups, the rank intervals, the detectable difference and the rank correlations of
a board all come from the same draws, the draws of its intervals.

- **Rank bounds** (:func:`rank_bounds`): in each resample, an entry's best rank is 1 + the
  number of entries strictly better (the rank the overview gives equal values), and its worst
  rank the number of entries at least as good, itself included: entries tied in a resample
  share the ranks they occupy between them. Values within 1e-9 points are equal; an entry
  without a value (NaN) ranks after every entry with one, tied with the other NaNs.
- **Rank interval** (:func:`rank_intervals`): at ``level`` (0.95), the ``ceil(B * (1 - level)
  / 2)``-th smallest of the entry's best ranks and the ``ceil(B * (1 + level) / 2)``-th
  smallest of its worst ranks over the ``B`` resamples (numpy's ``inverted_cdf`` quantiles):
  whole ranks, the central 95% of where the entry falls. Identical entries get the same
  interval, covering the ranks they share; an entry far from every other gets a single rank.
- **Detectable difference** (:func:`detectable_difference`): ``(z_{1 - alpha / 2} +
  z_{power}) * SE``, SE the median of the bootstrap standard errors of the adjacent entries'
  paired differences (pairs of identical entries left out): the smallest true difference a
  two-sided paired test at ``alpha`` finds with probability ``power``, in the normal
  approximation (Card et al., 2020, "With Little Power Comes Great Responsibility").
- **Rank correlations** (:func:`rank_correlations`): Kendall's tau-b and Spearman's rho of
  two value vectors, row by row, as ``scipy.stats.kendalltau`` and ``spearmanr`` define them
  (tau-b counts ties; rho is Pearson's r of the average ranks), in O(E log E) per row.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from scoring.errors import ScoringError

if TYPE_CHECKING:
    import numpy.typing as npt

    Block = npt.NDArray[Any]
    Floats = npt.NDArray[np.float64]
    Ranks = npt.NDArray[np.signedinteger[Any]]

#: Values within this many points of each other are equal (floating-point noise of sums).
TOLERANCE = 1e-9
#: Blocks up to this half-size are compared pair by pair when counting inversions.
_DIRECT = 16


def _checked(values: Block, direction: str) -> Floats:
    """``values`` as a (B x E) float64 array, once ``direction`` is known to be one."""
    if direction not in ("higher", "lower"):
        raise ScoringError(f"unknown direction {direction!r}: use higher or lower.")
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2:
        raise ScoringError("rank values come as one row per resample, one column per entry.")
    return values


#: Cells of ``values`` ranked at a time: a block of rows whose arrays stay in the processor's
#: cache (64 K cells: 128 rows of a board of 500 entries), a fifth less time than whole
#: (1,000 x 500) arrays that go through memory at each step.
_BLOCK_CELLS = 1 << 16


def _place_type(entries: int) -> type[np.signedinteger[Any]]:
    """The narrowest integers that hold a place or a rank among ``entries`` (less memory to go
    through: a board of 500 entries in 1,000 resamples makes arrays of megabytes)."""
    return np.int16 if entries < 2**15 else np.int32


def _places(values: Floats, direction: str) -> Iterator[tuple[int, Block, Block, Block]]:
    """(first row, order, best, worst) of ``values`` (B x E, ``_checked``) in ``direction``,
    block of rows after block: ``order[b]`` the entries of the block's resample ``b`` best
    first (``numpy.argsort``; NaN last), and for each place ``k`` of that order the best and
    worst rank (from 1) of its group of equal values, ``best[b, k]`` and ``worst[b, k]``: one
    more than the group's first and last places (from 0)."""
    rows, entries = values.shape
    dtype = _place_type(entries)
    step = max(1, _BLOCK_CELLS // max(entries, 1))
    for start in range(0, rows, step):
        block = values[start : start + step]
        keys = np.negative(block) if direction == "higher" else block.copy()
        keys[np.isnan(keys)] = np.inf
        order = np.argsort(keys, axis=1)
        ordered = np.take_along_axis(keys, order, axis=1)
        # ``fresh[b, k]``: place k starts a group of equal values (inf - inf: NaN, not above
        # the tolerance, so the entries without a value tie); a row's first place starts one
        fresh = np.empty(keys.shape, dtype=bool)
        fresh[:, :1] = True
        with np.errstate(invalid="ignore"):
            np.subtract(ordered[:, 1:], ordered[:, :-1], out=ordered[:, 1:])
            np.greater(ordered[:, 1:], TOLERANCE, out=fresh[:, 1:])
        # The block's groups, numbered in the order of its places row after row (no group
        # spans two rows: each row's first place starts one): each place's group, and each
        # group's first place and the first of the next (the block's end for the last),
        # flattened; a group's best rank is its first place in its row plus one, its worst
        # the best plus its size less one.
        flat = fresh.reshape(-1)
        group = np.cumsum(flat, dtype=np.intp)
        group -= 1
        starts = np.flatnonzero(flat)
        ends = np.empty_like(starts)
        ends[:-1] = starts[1:]
        ends[-1:] = flat.size
        within = starts % entries
        best = (within + 1).astype(dtype)[group].reshape(keys.shape)
        worst = (ends - starts + within).astype(dtype)[group].reshape(keys.shape)
        yield start, order, best, worst


def rank_bounds(values: Block, direction: str) -> tuple[Ranks, Ranks]:
    """(best, worst): each entry's best and worst rank in each resample (B x E, from 1), for
    ``values`` (B x E) in ``direction`` (``higher`` or ``lower`` is better)."""
    values = _checked(values, direction)
    entries = values.shape[1]
    best = np.empty(values.shape, dtype=_place_type(entries))
    worst = np.empty(values.shape, dtype=_place_type(entries))
    if entries == 0:
        return best, worst
    for start, order, first, last in _places(values, direction):
        # each place's entry as an index of the flattened block
        order += (np.arange(len(order)) * entries)[:, np.newaxis]
        at = order.reshape(-1)
        best[start : start + len(order)].reshape(-1)[at] = first.reshape(-1)
        worst[start : start + len(order)].reshape(-1)[at] = last.reshape(-1)
    return best, worst


def _tail_index(rows: int, quantile: float) -> int:
    """The 0-based index of the ``inverted_cdf`` ``quantile`` of ``rows`` sorted values."""
    # ``ceil`` of a product such as 1000 * 0.025 must not be pushed up by its rounding error
    return min(rows, max(1, math.ceil(rows * quantile - 1e-9))) - 1


def rank_intervals(values: Block, direction: str, level: float) -> list[tuple[int, int]]:
    """Each entry's ``level`` rank interval over the resamples of ``values`` (B x E): the
    ``inverted_cdf`` lower quantile of its best ranks and upper quantile of its worst ranks
    (see the module's text), each entry's pair of order statistics selected among its B ranks
    (``numpy.partition``, linear in B), not sorted."""
    if not 0 < level < 1:
        raise ScoringError("the confidence level must be above 0 and below 1 (e.g. 0.95).")
    values = _checked(values, direction)
    rows, entries = values.shape
    if rows == 0 or entries == 0:
        return []
    best, worst = rank_bounds(values, direction)
    low_at, high_at = _tail_index(rows, (1 - level) / 2), _tail_index(rows, (1 + level) / 2)
    best.partition(low_at, axis=0)
    worst.partition(high_at, axis=0)
    return list(zip(best[low_at].tolist(), worst[high_at].tolist(), strict=True))


def detectable_difference(
    errors: Sequence[float], alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """The smallest difference (in points) a two-sided paired test at ``alpha`` finds with
    probability ``power``: ``(z_{1 - alpha/2} + z_power)`` times the median of ``errors``, the
    bootstrap standard errors of the board's adjacent paired differences. Errors that are not
    finite (pairs not tested) or zero (identical entries: no variance to learn from) are left
    out; None when none is left."""
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ScoringError("alpha and power must be above 0 and below 1.")
    kept = [e for e in errors if math.isfinite(e) and e > 0]
    if not kept:
        return None
    normal = NormalDist()
    z = normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)
    return float(z * float(np.median(kept)))


def _inversions(codes: Ranks) -> npt.NDArray[np.int64]:
    """Per row of small whole numbers from 0 (B x E, below 2**15), the pairs ``i < j`` with
    ``codes[i] > codes[j]``, by merge counting: at each level, the pairs whose positions first
    differ in that level's bit (a block's left half before its right half). Small blocks are
    compared pair by pair; larger ones through the row's value order."""
    rows, entries = codes.shape
    total = np.zeros(rows, dtype=np.int64)
    if entries < 2 or rows == 0:
        return total
    if entries >= 2**14:
        raise ScoringError("too many entries to rank-correlate (at most 16383).")
    width = 2 * _DIRECT
    padded = np.full((rows, -(-entries // width) * width), int(codes.max()) + 1, dtype=np.int16)
    # padding comes last and above every value: never the larger of a counted pair
    padded[:, :entries] = codes
    half = 1
    while half <= _DIRECT and half < entries:
        blocks = padded.reshape(rows, -1, 2, half)
        left, right = blocks[:, :, 0, :, np.newaxis], blocks[:, :, 1, np.newaxis, :]
        total += np.count_nonzero(left > right, axis=(1, 2, 3))
        half *= 2
    if half >= entries:
        return total
    # positions in value order, equal values by position (so a left one counts as not greater)
    order = np.argsort(codes.astype(np.int16), axis=1, kind="stable").astype(np.int16)
    ranks = np.arange(entries, dtype=np.float64)
    while half < entries:
        # Each block (2 * half positions) in value order: a left-half element's rank there is
        # its rank among the left ones plus the right ones below it, so the block's pairs
        # (left > right) are the sum of its left ones' ranks minus a(a + 1) / 2, ``a`` their
        # number. Summed over the blocks of a row: the left ones' positions in the row's
        # block-sorted order, minus what depends on the blocks' sizes only.
        shift = half.bit_length()  # 2 * half == 1 << shift
        within = np.argsort(order >> shift, axis=1, kind="stable")
        is_left = (np.take_along_axis(order, within, axis=1) & half) == 0
        starts = np.arange(0, entries, 2 * half)
        lefts = np.minimum(half, entries - starts)
        constant = float((lefts * starts).sum() - lefts.sum() + (lefts * (lefts + 1) // 2).sum())
        total += np.rint(is_left @ ranks - constant).astype(np.int64)
        half *= 2
    return total


def rank_correlations(x: Block, y: Block) -> tuple[Floats, Floats]:
    """(Kendall's tau-b, Spearman's rho) of each row of ``x`` against the same row of ``y``
    (B x E each): tau-b = (n_c - n_d) / sqrt((n0 - n1) (n0 - n2)) with ties in x (n1) and in
    y (n2) counted, and rho = Pearson's r of the average ranks, as ``scipy.stats.kendalltau``
    and ``spearmanr``. NaN for a row with a NaN, fewer than two entries, or all of one side
    equal."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 2 or x.shape != y.shape:
        raise ScoringError("rank correlations need two rows of values of the same shape.")
    rows, entries = x.shape
    tau = np.full(rows, np.nan)
    rho = np.full(rows, np.nan)
    if entries < 2 or rows == 0:
        return tau, rho
    complete = ~(np.isnan(x).any(axis=1) | np.isnan(y).any(axis=1))
    x, y = x[complete], y[complete]
    best_x, worst_x = rank_bounds(x, "lower")
    best_y, worst_y = rank_bounds(y, "lower")
    pairs = entries * (entries - 1) / 2
    ties_x = ((worst_x - best_x).sum(axis=1)) / 2  # sum over groups of t(t - 1) / 2
    ties_y = ((worst_y - best_y).sum(axis=1)) / 2
    # sorted by x, then y: the discordant pairs are the inversions of y in that order
    joint = best_x.astype(np.int64) * (entries + 1) + best_y
    order = np.argsort(joint, axis=1)
    offsets = (np.arange(len(joint), dtype=np.intp) * entries)[:, np.newaxis]
    flat = (order + offsets).ravel()
    joint_sorted = joint.ravel()[flat].reshape(joint.shape)
    tied_both = np.zeros(len(joint))
    if entries > 1:
        # pairs equal on both sides: per sorted position, the earlier positions of its group
        fresh = np.ones(joint.shape, dtype=bool)
        fresh[:, 1:] = joint_sorted[:, 1:] != joint_sorted[:, :-1]
        positions = np.arange(entries)
        tied_both = (positions - np.maximum.accumulate(fresh * positions, axis=1)).sum(axis=1)
    discordant = _inversions(best_y.ravel()[flat].reshape(best_y.shape))
    concordant_minus = pairs - ties_x - ties_y + tied_both - 2 * discordant
    with np.errstate(divide="ignore", invalid="ignore"):
        tau[complete] = concordant_minus / np.sqrt((pairs - ties_x) * (pairs - ties_y))
        average_x = (best_x + worst_x) / 2 - (entries + 1) / 2
        average_y = (best_y + worst_y) / 2 - (entries + 1) / 2
        rho[complete] = (average_x * average_y).sum(axis=1) / np.sqrt(
            (average_x**2).sum(axis=1) * (average_y**2).sum(axis=1)
        )
    return tau, rho
