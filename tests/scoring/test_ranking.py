"""Rank intervals, the detectable difference and rank correlations (``scoring.ranking``) against
independent computations: boards whose answer is known by construction, plain Python loops over
the same resample indices, and scipy's ``kendalltau``, ``spearmanr`` and ``norm``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scoring import ScoringError
from scoring.ranking import (
    detectable_difference,
    rank_bounds,
    rank_correlations,
    rank_intervals,
)
from scoring.stats import bootstrap_p_values, resample_entries
from tests.scoring.helpers import rank_bounds_loop, rank_intervals_sorted, resample_indices

if TYPE_CHECKING:
    pass


def _indices(n: int, n_boot: int, seed: int) -> np.ndarray:
    """The bootstrap's resamples as the docs define them (dialogue j of resample b is
    floor(r * n / 2**64), r raw value b * n + j of PCG64(seed)), in plain integers."""
    return np.array(resample_indices(n, n_boot, seed), dtype=np.int64).reshape(n_boot, n)


def _loop_values(numerators, denominators, n_boot, seed):
    """Each entry's metric on each resample, one resample and one entry at a time."""
    picks = _indices(len(numerators[0]), n_boot, seed)
    return [
        [100 * sum(num[i] for i in row) / sum(den[i] for i in row) for num, den in
         zip(numerators, denominators, strict=True)]
        for row in picks
    ]  # fmt: skip


def _loop_intervals(values, higher=True, level=0.95):
    """Best rank = 1 + entries strictly better; worst = entries at least as good; the interval
    is the ceil(B * 0.025)-th smallest best rank and the ceil(B * 0.975)-th smallest worst."""
    best, worst = [], []
    for row in values:
        better = (lambda a, b: a > b) if higher else (lambda a, b: a < b)
        best.append([1 + sum(better(o, v) for o in row) for v in row])
        worst.append([sum(not better(v, o) for o in row) for v in row])
    b = len(values)
    low_at = math.ceil(round(b * (1 - level) / 2, 9)) - 1
    high_at = math.ceil(round(b * (1 + level) / 2, 9)) - 1
    return [
        (sorted(col[e] for col in best)[low_at], sorted(col[e] for col in worst)[high_at])
        for e in range(len(values[0]))
    ]


def test_identical_entries_share_their_ranks_and_separated_ones_get_one_rank_each():
    """By construction: 40 dialogues of 5 turns; ``top`` gets every turn right, ``twin`` and
    ``twin2`` the same 3 of 5 in every dialogue, ``last`` none. Whatever the resample, top is
    first, the twins tie for second and third, last is fourth."""
    turns = [5] * 40
    top, twin, last = [5] * 40, [3] * 40, [0] * 40
    entries = [twin, top, last, list(twin)]
    found = resample_entries(entries, [turns] * 4, [], 500, 11)
    assert rank_intervals(found.values, "higher", 0.95) == [(2, 3), (1, 1), (4, 4), (2, 3)]
    # lower is better: the order turns round
    assert rank_intervals(found.values, "lower", 0.95) == [(2, 3), (4, 4), (1, 1), (2, 3)]


def test_rank_intervals_equal_a_plain_loop_over_the_same_resamples():
    rng = np.random.default_rng(4)
    n, n_boot, seed = 30, 200, 9
    turns = rng.integers(1, 6, size=n)
    base = rng.binomial(turns, 0.5)
    entries = [np.minimum(turns, base + rng.integers(0, 2, size=n)) for _ in range(6)]
    entries.append(entries[2].copy())  # an identical pair
    found = resample_entries(entries, [turns] * len(entries), [], n_boot, seed)
    lists = [e.tolist() for e in entries]
    loop = _loop_values(lists, [turns.tolist()] * len(entries), n_boot, seed)
    np.testing.assert_allclose(found.values, np.array(loop), rtol=0, atol=1e-9)
    assert rank_intervals(found.values, "higher", 0.95) == _loop_intervals(loop)
    assert rank_intervals(found.values, "higher", 0.9) == _loop_intervals(loop, level=0.9)
    assert rank_intervals(found.values, "lower", 0.95) == _loop_intervals(loop, higher=False)
    # numpy's inverted_cdf quantiles say the same
    best, worst = rank_bounds(found.values, "higher")
    low = np.quantile(best, 0.025, axis=0, method="inverted_cdf")
    high = np.quantile(worst, 0.975, axis=0, method="inverted_cdf")
    assert [(int(a), int(b)) for a, b in zip(low, high, strict=True)] == _loop_intervals(loop)


def test_entries_with_other_denominators_are_resampled_on_their_own_and_ranked_with_the_rest():
    """F1-like entries: each divides its resampled numerators by its own resampled
    denominators (ratio of sums), with the same resamples as everyone."""
    rng = np.random.default_rng(8)
    n = 25
    dens = [rng.integers(1, 9, size=n) for _ in range(4)]
    nums = [rng.binomial(d, p) for d, p in zip(dens, (0.3, 0.5, 0.52, 0.9), strict=True)]
    found = resample_entries(nums, dens, [(0, 1)], 150, 3)
    loop = _loop_values([x.tolist() for x in nums], [d.tolist() for d in dens], 150, 3)
    np.testing.assert_allclose(found.values, np.array(loop), rtol=0, atol=1e-9)
    assert rank_intervals(found.values, "higher", 0.95) == _loop_intervals(loop)
    # no paired test between entries whose denominators differ
    assert math.isnan(found.p_values[0]) and math.isnan(found.errors[0])


def test_an_entry_without_a_value_ranks_last_tied_with_the_others_without_one():
    values = np.array([[50.0, np.nan, 40.0, np.nan], [45.0, np.nan, 48.0, np.nan]])
    best, worst = rank_bounds(values, "higher")
    assert best.tolist() == [[1, 3, 2, 3], [2, 3, 1, 3]]
    assert worst.tolist() == [[1, 4, 2, 4], [2, 4, 1, 4]]
    assert rank_intervals(values, "higher", 0.5) == [(1, 2), (3, 4), (1, 2), (3, 4)]


def _random_boards(count: int, seed: int):
    """``count`` boards (B in 1..300, E in 1..40) of values drawn from a few levels, so that
    entries often tie (also within the tolerance: a level and the level plus 1e-10), with
    entries or whole resamples without a value (NaN) in some."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        rows, entries = int(rng.integers(1, 301)), int(rng.integers(1, 41))
        levels = rng.choice([0.0, 12.5, 50.0, 50.0 + 1e-10, 62.5, 100.0], size=rng.integers(1, 7))
        values = rng.choice(levels, size=(rows, entries))
        if rng.random() < 0.4:
            values[rng.random(values.shape) < rng.choice([0.02, 0.3])] = np.nan
        if rng.random() < 0.2:
            values[:, rng.integers(entries)] = np.nan  # an entry without any value
        yield values


@pytest.mark.parametrize("seed", range(4))
def test_rank_intervals_equal_the_sort_based_method_on_random_boards(seed):
    tested = set()
    for values in _random_boards(60, seed):
        tested.add(np.isnan(values).any())
        for direction in ("higher", "lower"):
            for level in (0.5, 0.9, 0.95):
                found = rank_intervals(values, direction, level)
                assert found == rank_intervals_sorted(values, direction, level), (
                    values.shape,
                    direction,
                    level,
                )
    assert tested == {False, True}


@pytest.mark.parametrize("seed", range(2))
def test_rank_bounds_equal_a_plain_loop_on_random_boards(seed):
    """Ties within the tolerance, entries and resamples without a value, both directions;
    and boards of more resamples than ``rank_bounds`` ranks at a time (its blocks of rows)."""
    boards = list(_random_boards(25, seed + 200))
    rng = np.random.default_rng(seed)
    wide = rng.choice([10.0, 20.0, 20.0 + 1e-10, 30.0, np.nan], size=(700, 120))
    for values in [*boards, wide]:
        for direction in ("higher", "lower"):
            best, worst = rank_bounds(values, direction)
            assert (best.tolist(), worst.tolist()) == rank_bounds_loop(values, direction)


#: level: the quantiles of its interval, as exact decimals (numpy's ``(1 - 0.95) / 2`` is a hair
#: above 0.025, and B * it can pass a whole number that ``ceil`` then takes one further)
QUANTILES = {0.5: (0.25, 0.75), 0.9: (0.05, 0.95), 0.95: (0.025, 0.975)}


@pytest.mark.parametrize("seed", range(4))
def test_rank_intervals_are_numpys_inverted_cdf_quantiles_of_the_rank_bounds(seed):
    """Independently of either implementation's packing: each entry's ``level`` interval is
    numpy's ``inverted_cdf`` quantile (1 - level) / 2 of its best ranks and (1 + level) / 2
    of its worst ranks, from ``rank_bounds``, one entry at a time."""
    for values in _random_boards(60, seed + 100):
        for direction in ("higher", "lower"):
            best, worst = rank_bounds(values, direction)
            for level, (low, high) in QUANTILES.items():
                expected = [
                    (
                        int(np.quantile(best[:, e], low, method="inverted_cdf")),
                        int(np.quantile(worst[:, e], high, method="inverted_cdf")),
                    )
                    for e in range(values.shape[1])
                ]
                assert rank_intervals(values, direction, level) == expected


def test_rank_intervals_of_boards_at_the_counts_edges():
    """One resample, one entry, every entry tied, and every value missing."""
    assert rank_intervals(np.array([[3.0, 1.0, 2.0]]), "higher", 0.95) == [(1, 1), (3, 3), (2, 2)]
    assert rank_intervals(np.array([[3.0], [1.0]]), "lower", 0.9) == [(1, 1)]
    assert rank_intervals(np.full((5, 4), 7.0), "higher", 0.95) == [(1, 4)] * 4
    assert rank_intervals(np.full((5, 3), np.nan), "lower", 0.5) == [(1, 3)] * 3
    assert rank_intervals(np.empty((0, 3)), "higher", 0.95) == []
    assert rank_intervals(np.empty((4, 0)), "higher", 0.95) == []


def test_resampling_keeps_the_rank_groups_p_values():
    rng = np.random.default_rng(2)
    turns = rng.integers(2, 7, size=20)
    entries = [np.minimum(turns, rng.integers(0, 7, size=20)) for _ in range(4)]
    pairs = [(0, 1), (1, 2), (2, 3)]
    found = resample_entries(entries, [turns] * 4, pairs, 300, 17)
    assert list(found.p_values) == bootstrap_p_values(entries, [turns] * 4, pairs, 300, 17)


def test_the_detectable_difference_is_z_times_the_median_adjacent_standard_error():
    """Each adjacent pair's standard error is the standard deviation (n - 1) of its
    resampled difference, computed here resample by resample; the detectable difference is
    (z_0.975 + z_0.8) times their median (scipy's normal quantiles)."""
    rng = np.random.default_rng(5)
    n, n_boot, seed = 40, 400, 21
    turns = rng.integers(1, 8, size=n)
    entries = [rng.binomial(turns, p) for p in (0.8, 0.7, 0.65, 0.4)]
    entries.insert(2, entries[1].copy())  # identical neighbours: no variance, left out
    pairs = [(i, i + 1) for i in range(len(entries) - 1)]
    found = resample_entries(entries, [turns] * len(entries), pairs, n_boot, seed)
    picks = _indices(n, n_boot, seed)
    errors = []
    for a, b in pairs:
        gaps = [100 * sum(int(entries[a][i]) - int(entries[b][i]) for i in row)
                / sum(int(turns[i]) for i in row) for row in picks]  # fmt: skip
        errors.append(float(np.std(gaps, ddof=1)))
    np.testing.assert_allclose(found.errors, errors, rtol=1e-9, atol=1e-12)
    assert errors[1] == 0.0
    z = scipy_stats.norm.ppf(0.975) + scipy_stats.norm.ppf(0.8)
    expected = z * float(np.median([e for e in errors if e > 0]))
    assert detectable_difference(found.errors) == pytest.approx(expected, rel=1e-12)
    assert detectable_difference([]) is None
    assert detectable_difference([float("nan"), 0.0]) is None
    with pytest.raises(ScoringError):
        detectable_difference([1.0], alpha=0)


@pytest.mark.parametrize("entries", [2, 3, 7, 16, 17, 33, 64, 65, 130, 300])
def test_rank_correlations_equal_scipys_kendalltau_and_spearmanr(entries):
    rng = np.random.default_rng(entries)
    rows = 12
    x = rng.integers(0, max(2, entries // 3), size=(rows, entries)).astype(float)  # many ties
    y = x + rng.integers(-2, 3, size=(rows, entries))
    x[0] = rng.permutation(entries)  # and rows without any
    y[0] = rng.permutation(entries)
    tau, rho = rank_correlations(x, y)
    for r in range(rows):
        if np.ptp(x[r]) == 0 or np.ptp(y[r]) == 0:
            assert math.isnan(tau[r]) and math.isnan(rho[r])
            continue
        assert tau[r] == pytest.approx(scipy_stats.kendalltau(x[r], y[r]).statistic, abs=1e-12)
        assert rho[r] == pytest.approx(scipy_stats.spearmanr(x[r], y[r]).statistic, abs=1e-12)


def test_rank_correlations_of_rows_with_a_missing_value_are_not_defined():
    x = np.array([[1.0, 2.0, 3.0], [1.0, np.nan, 3.0], [1.0, 1.0, 1.0]])
    tau, rho = rank_correlations(x, x[::-1] * 0 + np.array([3.0, 2.0, 1.0]))
    assert tau[0] == pytest.approx(-1.0) and rho[0] == pytest.approx(-1.0)
    assert np.isnan(tau[1:]).all() and np.isnan(rho[1:]).all()
    with pytest.raises(ScoringError):
        rank_correlations(x, x[:2])
