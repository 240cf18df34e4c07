"""Intervals and paired tests against slow, obviously-correct loops written here."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import scoring
from scoring import stats
from scoring.synth import make_gold, make_prediction


def _percentile(values: list[float], q: float) -> float:
    """Linear-interpolation percentile, written out (numpy's default method)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _load(gold: dict, pred: dict) -> tuple[scoring.Reference, scoring.Prediction]:
    reference = scoring.load_reference(json.dumps(gold).encode(), "gold.json")
    return reference, scoring.load_prediction(json.dumps(pred).encode(), reference, "p.json")


def test_bootstrap_intervals_match_a_plain_resampling_loop():
    gold = make_gold(n_dialogues=80, seed=3)
    reference, prediction = _load(gold, make_prediction(gold, 0.2, seed=4))
    result = scoring.score(reference, prediction, scoring.Settings(n_boot=500, seed=99))

    # The per-dialogue facts, recomputed here from the per-turn marks.
    dialogues = result.per_dialogue
    correct = [d.turn_correct.count("1") for d in dialogues]
    turns = [len(d.turn_correct) for d in dialogues]
    errors = [d.sub + d.dele + d.ins for d in dialogues]
    n_ref = [d.n_ref for d in dialogues]

    rng = np.random.default_rng(99)
    jga_samples, ser_samples = [], []
    for _ in range(500):
        picks = [int(i) for i in rng.integers(0, len(dialogues), size=len(dialogues))]
        jga_samples.append(100 * sum(correct[i] for i in picks) / sum(turns[i] for i in picks))
        ser_samples.append(100 * sum(errors[i] for i in picks) / sum(n_ref[i] for i in picks))

    assert result.jga_ci == pytest.approx(
        (_percentile(jga_samples, 2.5), _percentile(jga_samples, 97.5)), abs=1e-9
    )
    assert result.ser_ci == pytest.approx(
        (_percentile(ser_samples, 2.5), _percentile(ser_samples, 97.5)), abs=1e-9
    )


def test_the_same_seed_gives_the_same_interval_and_another_seed_another():
    gold = make_gold(n_dialogues=40, seed=5)
    reference, prediction = _load(gold, make_prediction(gold, 0.3, seed=6))
    first = scoring.score(reference, prediction, scoring.Settings(seed=1))
    again = scoring.score(reference, prediction, scoring.Settings(seed=1))
    other = scoring.score(reference, prediction, scoring.Settings(seed=2))
    assert first.jga_ci == again.jga_ci
    assert first.jga_ci != other.jga_ci


def test_paired_test_matches_a_plain_randomisation_loop():
    gold = make_gold(n_dialogues=50, seed=8)
    pred_a = make_prediction(gold, 0.2, seed=9)
    pred_b = make_prediction(gold, 0.25, seed=10)
    reference = scoring.load_reference(json.dumps(gold).encode(), "gold.json")
    a = scoring.load_prediction(json.dumps(pred_a).encode(), reference, "a.json")
    b = scoring.load_prediction(json.dumps(pred_b).encode(), reference, "b.json")
    comparison = scoring.compare(reference, a, b, scoring.Settings(n_boot=400, seed=11))

    correct_a = [d.correct for d in comparison.a.per_dialogue]
    correct_b = [d.correct for d in comparison.b.per_dialogue]
    total = sum(d.turns for d in comparison.a.per_dialogue)
    observed = 100 * (sum(correct_a) - sum(correct_b)) / total
    rng = np.random.default_rng(11)
    flips = rng.integers(0, 2, size=(400, len(correct_a)))
    extreme = 0
    for row in flips:
        diff = sum(
            (ca - cb) if flip else (cb - ca)
            for ca, cb, flip in zip(correct_a, correct_b, row, strict=True)
        )
        if abs(100 * diff / total) >= abs(observed) - 1e-9:
            extreme += 1
    assert comparison.jga.difference == pytest.approx(observed)
    assert comparison.jga.p_value == pytest.approx((extreme + 1) / 401)
    assert comparison.jga.ci[0] <= observed <= comparison.jga.ci[1]


def test_identical_inputs_are_not_significant():
    gold = make_gold(n_dialogues=30, seed=1)
    reference, prediction = _load(gold, make_prediction(gold, 0.2, seed=2))
    comparison = scoring.compare(reference, prediction, prediction)
    for test in (comparison.jga, comparison.ser):
        assert test.difference == 0
        assert test.p_value == 1.0
        assert test.significant is False


@cache
def _fixture_reference(path: Path) -> scoring.Reference:
    return scoring.load_reference(path.read_bytes(), path.name)


def test_gold_against_augpt_is_significant(fixtures_dir):
    gold_path = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    reference = _fixture_reference(gold_path)
    gold = scoring.load_prediction(gold_path.read_bytes(), reference, "gold.json")
    augpt_path = fixtures_dir / "mwzeval-predictions" / "augpt.json"
    augpt = scoring.load_prediction(augpt_path.read_bytes(), reference, "augpt.json")
    comparison = scoring.compare(reference, gold, augpt)
    assert comparison.jga.significant
    assert comparison.ser.significant
    assert comparison.jga.difference == pytest.approx(100 - 17.93, abs=0.01)
    assert comparison.jga.p_value == pytest.approx(1 / 1001)


def test_many_paired_p_values_at_once_equal_one_test_each():
    rng = np.random.default_rng(0)
    turns = rng.integers(1, 9, size=60)
    systems = [rng.integers(0, turns + 1) for _ in range(6)]
    a, b = systems[:-1], systems[1:]  # adjacent pairs, as on a leaderboard
    together = stats.paired_p_values(a, b, turns, 300, 17)
    one_by_one = [
        stats.paired_test("jga", x, y, turns, 300, 17, 0.95).p_value
        for x, y in zip(a, b, strict=True)
    ]
    assert together == one_by_one
