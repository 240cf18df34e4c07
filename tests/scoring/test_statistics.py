"""Intervals and paired tests against slow, obviously-correct loops written here."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import Resampling, ScoringError, Source, get_task, stats
from scoring.stats import sorted_percentile
from scoring.synth import make_gold, make_prediction
from tests.scoring import helpers

TASK = get_task("dstc11")


def _percentile(values: list[float], q: float) -> float:
    """Linear-interpolation percentile, written out (numpy's default method)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def test_bootstrap_intervals_match_a_plain_resampling_loop():
    gold = make_gold(n_dialogues=80, seed=3)
    pred = make_prediction(gold, 0.2, seed=4)
    result = helpers.score(gold, pred, resampling=Resampling(n_boot=500, seed=99))

    # The per-dialogue counts the intervals resample.
    correct, turns = result.dialogues.columns["jga"]
    errors, n_ref = result.dialogues.columns["ser"]
    assert list(turns) == [len(t) for t in gold.values()]

    jga_samples, ser_samples = [], []
    for picks in helpers.resample_indices(len(turns), 500, 99):
        jga_samples.append(100 * sum(correct[i] for i in picks) / sum(turns[i] for i in picks))
        ser_samples.append(100 * sum(errors[i] for i in picks) / sum(n_ref[i] for i in picks))

    assert result.cis["jga"] == pytest.approx(
        (_percentile(jga_samples, 2.5), _percentile(jga_samples, 97.5)), abs=1e-9
    )
    assert result.cis["ser"] == pytest.approx(
        (_percentile(ser_samples, 2.5), _percentile(ser_samples, 97.5)), abs=1e-9
    )


def test_the_same_seed_gives_the_same_interval_and_another_seed_another():
    gold = make_gold(n_dialogues=40, seed=5)
    pred = make_prediction(gold, 0.3, seed=6)
    first = helpers.score(gold, pred, resampling=Resampling(seed=1))
    again = helpers.score(gold, pred, resampling=Resampling(seed=1))
    other = helpers.score(gold, pred, resampling=Resampling(seed=2))
    assert first.cis["jga"] == again.cis["jga"]
    assert first.cis["jga"] != other.cis["jga"]


def _compare(gold, pred_a, pred_b, resampling=None):
    reference = helpers.reference(gold)
    a = helpers.prediction(pred_a, reference, name="a.json")
    b = helpers.prediction(pred_b, reference, name="b.json")
    return TASK.compare(reference, a, b, resampling=resampling)


def test_paired_test_matches_a_plain_randomisation_loop():
    gold = make_gold(n_dialogues=50, seed=8)
    pred_a = make_prediction(gold, 0.2, seed=9)
    pred_b = make_prediction(gold, 0.25, seed=10)
    comparison = _compare(gold, pred_a, pred_b, Resampling(n_boot=400, seed=11))

    correct_a, turns = comparison.a.dialogues.columns["jga"]
    correct_b, _ = comparison.b.dialogues.columns["jga"]
    total = sum(turns)
    observed = 100 * (sum(correct_a) - sum(correct_b)) / total
    flips = helpers.sign_flips(len(correct_a), 400, 11)
    extreme = 0
    for row in flips:
        diff = sum(
            (ca - cb) if flip == 1 else (cb - ca)
            for ca, cb, flip in zip(correct_a, correct_b, row, strict=True)
        )
        if abs(100 * diff / total) >= abs(observed) - 1e-9:
            extreme += 1
    jga = comparison.tests["jga"]
    assert jga.difference == pytest.approx(observed)
    assert jga.p_value == pytest.approx((extreme + 1) / 401)
    assert jga.ci[0] <= observed <= jga.ci[1]


def test_identical_inputs_are_not_significant():
    gold = make_gold(n_dialogues=30, seed=1)
    pred = make_prediction(gold, 0.2, seed=2)
    comparison = _compare(gold, pred, pred)
    assert set(comparison.tests) == {"jga", "ser"}  # F1's denominators differ per prediction
    for test in comparison.tests.values():
        assert test.difference == 0
        assert test.p_value == 1.0
        assert test.significant is False


@cache
def _fixture_reference(path: Path) -> object:
    return TASK.load_reference(Source(path.read_bytes(), path.name))


def test_gold_against_augpt_is_significant(fixtures_dir):
    gold_path = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    reference = _fixture_reference(gold_path)
    gold = TASK.load_prediction(Source(gold_path.read_bytes(), "gold.json"), reference)
    augpt_path = fixtures_dir / "mwzeval-predictions" / "augpt.json"
    augpt = TASK.load_prediction(Source(augpt_path.read_bytes(), "augpt.json"), reference)
    tests = TASK.compare(reference, gold, augpt).tests
    assert tests["jga"].significant
    assert tests["ser"].significant
    assert tests["jga"].difference == pytest.approx(100 - 17.93, abs=0.01)
    assert tests["jga"].p_value == pytest.approx(1 / 1001)


def _bootstrap_p_value(num_a, num_b, den, n_boot, seed):
    """The rank groups' paired bootstrap p-value, written out: draw each resample's dialogue
    indices as the intervals do, recompute A - B on it, and count the signs."""
    n = len(den)
    at_most_zero = at_least_zero = usable = 0
    for picks in helpers.resample_indices(n, n_boot, seed):
        total = sum(float(den[i]) for i in picks)
        if total == 0:
            continue
        difference = 100 * sum(float(num_a[i]) - float(num_b[i]) for i in picks) / total
        usable += 1
        at_most_zero += difference <= 0
        at_least_zero += difference >= 0
    return min(1.0, 2 * min(at_most_zero, at_least_zero) / usable)


def test_resample_weights_count_the_intervals_draws_in_every_block(monkeypatch):
    monkeypatch.setattr(stats, "_WEIGHT_CELLS", 7 * 5)  # blocks of 5 rows of 7 dialogues
    blocks = list(stats.resample_weights(7, 23, 4))
    assert [start for start, _ in blocks] == [0, 5, 10, 15, 20]
    weights = np.concatenate([block for _, block in blocks])
    assert weights.dtype == np.float32
    picks = helpers.resample_indices(7, 23, 4)
    for row, drawn in zip(weights, picks, strict=True):
        assert row.tolist() == [float(drawn.count(j)) for j in range(7)]


@pytest.mark.parametrize("n", [1, 2, 7, 1000, 2**31 + 5, 2**32 - 1])
def test_the_draw_is_the_documented_multiply_high_of_the_pcg64_stream(n):
    """``floor(r * n / 2**64)`` of each raw value, in numpy's 64-bit arithmetic, equals the
    plain-integer product of the docs; every piece of the stream, drawn on its own from any
    position, is that piece of the whole (across the chunks of the arithmetic too)."""
    whole = helpers.index_stream(n, 31, 40_000)
    assert stats.draw_indices(n, 31, 0, 40_000).tolist() == whole
    assert all(0 <= i < n for i in whole)
    for first, count in ((0, 1), (1, 999), (7, 16_384), (16_383, 2), (12_345, 27_655), (40_000, 0)):
        drawn = stats.draw_indices(n, 31, first, count)
        assert drawn.dtype == np.int64
        assert drawn.tolist() == whole[first : first + count], (first, count)
    if n == 1:
        assert set(whole) == {0}


@pytest.mark.parametrize("n", [1, 7, 1000])
def test_resamples_are_the_same_in_one_block_or_many(n, monkeypatch):
    """Resample ``b`` is values ``b * n`` .. ``b * n + n - 1`` of the stream, whether the
    rows are drawn in blocks of 100 (the intervals), of another size (the weights) or at once."""
    expected = helpers.resample_indices(n, 250, 8)
    blocks = stats._index_blocks(n, 250, 8)
    assert [start for start, _ in blocks] == [0, 100, 200]
    assert np.concatenate([rows for _, rows in blocks]).tolist() == expected
    counted = [[row.count(j) for j in range(n)] for row in expected]
    for cells in (n * 3, n * 250, 1 << 22):  # blocks of 3 rows, one block, the default
        monkeypatch.setattr(stats, "_WEIGHT_CELLS", cells)
        weights = np.concatenate([w for _, w in stats.resample_weights(n, 250, 8)])
        assert weights.tolist() == counted


def test_a_draw_from_too_many_dialogues_is_refused():
    with pytest.raises(ScoringError, match="4294967295"):
        stats.draw_indices(2**32, 1, 0, 10)
    assert stats.draw_indices(0, 1, 0, 0).tolist() == []


def test_the_sign_flips_are_the_top_bits_of_the_pcg64_stream():
    signs = stats.draw_signs(13, 57, 6)
    assert signs.shape == (57, 13)
    assert signs.tolist() == helpers.sign_flips(13, 57, 6)
    assert set(signs.reshape(-1).tolist()) == {-1, 1}


def test_bootstrap_p_values_match_a_plain_resampling_loop():
    rng = np.random.default_rng(0)
    turns = rng.integers(1, 9, size=40)
    systems = [rng.integers(0, turns + 1) for _ in range(5)]
    systems[3] = systems[2]  # identical neighbours
    pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]
    found = stats.bootstrap_p_values(systems, [turns] * 5, pairs, 300, 17)
    expected = [_bootstrap_p_value(systems[a], systems[b], turns, 300, 17) for a, b in pairs]
    assert found == pytest.approx(expected, abs=1e-12)
    assert found[2] == 1.0


def test_fractional_counts_are_resampled_like_whole_ones():
    # fuzzy matching gives fractional numerators: summed in float64, not float32
    rng = np.random.default_rng(1)
    den = rng.integers(1, 5, size=30).astype(float)
    a = np.round(rng.random(30) * den, 2)
    b = np.round(rng.random(30) * den, 2)
    found = stats.bootstrap_p_values([a, b], [den, den], [(0, 1)], 200, 3)
    assert found == pytest.approx([_bootstrap_p_value(a, b, den, 200, 3)], abs=1e-12)


def test_identical_entries_get_p_1_and_entries_apart_in_every_dialogue_p_0():
    den = [4, 2, 3, 5, 1, 2]
    low = [1, 0, 1, 2, 0, 1]
    high = [3, 2, 2, 4, 1, 2]  # better in every dialogue
    assert stats.bootstrap_p_values([low, low, high], [den] * 3, [(0, 1), (1, 2)], 100, 5) == [
        1.0,
        0.0,
    ]


def test_entries_with_other_denominators_are_not_tested():
    found = stats.bootstrap_p_values([[1, 1], [1, 0]], [[2, 2], [2, 3]], [(0, 1)], 50, 1)
    assert np.isnan(found[0])
    assert stats.bootstrap_p_values([[1, 1]], [[2, 2]], [], 50, 1) == []
    # no dialogues, or none with anything to count
    assert np.isnan(stats.bootstrap_p_values([[], []], [[], []], [(0, 1)], 50, 1)[0])
    assert np.isnan(stats.bootstrap_p_values([[0, 0], [0, 0]], [[0, 0]] * 2, [(0, 1)], 50, 1)[0])


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, width=32), min_size=1, max_size=60
    ),
    wide=st.booleans(),
    percent=st.one_of(
        st.sampled_from([0.0, 2.5, 5.0, 50.0, 95.0, 97.5, 100.0]),
        st.floats(min_value=0, max_value=100),
    ),
)
def test_the_percentile_of_a_sorted_sample_is_numpys_to_the_bit(values, wide, percent):
    """``sorted_percentile`` gives the very number ``np.percentile`` gives (its default, linear
    method), ties and tiny samples included, for float32 and float64 samples."""
    ordered = np.sort(np.array(values, dtype=np.float64 if wide else np.float32))
    expected = float(np.percentile(ordered, [percent])[0])  # as the intervals asked for them
    assert sorted_percentile(ordered, percent) == expected or (
        math.isnan(expected) and math.isnan(sorted_percentile(ordered, percent))
    )


def test_a_percentile_on_a_hand_worked_sample():
    ordered = np.array([1.0, 2.0, 4.0, 8.0])
    assert sorted_percentile(ordered, 50) == 3.0  # position 1.5: halfway from 2 to 4
    assert sorted_percentile(ordered, 25) == 1.75  # position 0.75: 1 + 0.75 x 1
    assert sorted_percentile(ordered, 100) == 8.0
    assert sorted_percentile(ordered, 0) == 1.0
