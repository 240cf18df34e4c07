"""The command line's forked statistics give exactly the in-process numbers."""

from __future__ import annotations

import math
import os
import signal

import pytest

from scoring import stats
from scoring.parallel import ForkedStatistics

CORRECT = [3, 0, 5, 2, 7, 1, 4, 4]
TURNS = [5, 4, 6, 3, 9, 2, 4, 8]
OTHER = [2, 1, 5, 0, 6, 1, 2, 4]


@pytest.fixture
def forked():
    statistics = ForkedStatistics.start()
    assert statistics is not None
    yield statistics
    statistics.close()


def test_intervals_are_identical(forked):
    pairs = {"jga": (CORRECT, TURNS), "other": (OTHER, TURNS)}
    assert forked.bootstrap_ci(pairs, 500, 7, 0.95) == stats.bootstrap_ci(pairs, 500, 7, 0.95)


def test_intervals_after_prepare_are_identical(forked):
    pairs = {"jga": (CORRECT, TURNS), "other": (OTHER, TURNS)}
    forked.prepare(len(CORRECT), 400, 11)
    assert forked.bootstrap_ci(pairs, 400, 11, 0.9) == stats.bootstrap_ci(pairs, 400, 11, 0.9)
    forked.prepare(3, 400, 11)  # another size: the draws asked for are made when asked
    assert forked.bootstrap_ci(pairs, 400, 11, 0.9) == stats.bootstrap_ci(pairs, 400, 11, 0.9)


def test_paired_tests_are_identical(forked):
    remote = forked.paired_test("jga", CORRECT, OTHER, TURNS, 300, 3, 0.9)
    local = stats.paired_test("jga", CORRECT, OTHER, TURNS, 300, 3, 0.9)
    assert remote == local


def test_undefined_intervals_survive_the_trip(forked):
    (low, high) = forked.bootstrap_ci({"x": ([0, 0], [0, 0])}, 10, 1, 0.95)["x"]
    assert math.isnan(low) and math.isnan(high)


def test_a_dead_child_means_computing_locally(forked):
    os.kill(forked._pid, signal.SIGKILL)
    pairs = {"jga": (CORRECT, TURNS)}
    assert forked.bootstrap_ci(pairs, 100, 5, 0.95) == stats.bootstrap_ci(pairs, 100, 5, 0.95)


def test_errors_are_raised_by_the_local_call(forked):
    with pytest.raises(ValueError, match="undefined on this reference"):
        forked.paired_test("jga", [0], [0], [0], 10, 1, 0.95)


def _cli(*args: str):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "scoring", *args], capture_output=True, text=True, check=False
    )


def test_the_cli_reports_a_broken_reference_first(tmp_path):
    gold = tmp_path / "gold.json"
    gold.write_text('{"d1": [{"hotel": {"area": 3}}]}')
    pred = tmp_path / "pred.json"
    pred.write_text("[")
    run = _cli("score", "--gold", str(gold), "--pred", str(pred))
    assert run.returncode == 2
    assert run.stderr == (
        "error: gold.json: dialogue 'd1', turn 0: slot 'hotel-area': the value must be a "
        "string, found the number 3.\n"
    )


def test_the_cli_reports_a_broken_prediction_after_a_good_reference(tmp_path):
    gold = tmp_path / "gold.json"
    gold.write_text('{"d1": [{"hotel": {"area": "north"}}]}')
    pred = tmp_path / "pred.json"
    pred.write_text('{"d1": [{"hotel": {"area": "north"}}], "d2": [{}]}')
    run = _cli("score", "--gold", str(gold), "--pred", str(pred))
    assert run.returncode == 2
    assert run.stderr == "error: pred.json: 1 dialogue id(s) are not in the reference: d2.\n"


def test_a_compact_reference_scores_like_the_full_one():
    import json

    import scoring
    from scoring.synth import make_gold, make_prediction

    gold = make_gold(20, seed=4)
    data = json.dumps(make_prediction(gold, 0.3, seed=5)).encode()
    full = scoring.load_reference(json.dumps(gold).encode(), "gold.json")
    compact = full.compact("default")
    a = scoring.score(full, scoring.load_prediction(data, full, "p.json"))
    b = scoring.score(compact, scoring.load_prediction(data, compact, "p.json"))
    assert a.as_dict(per_dialogue=True) == b.as_dict(per_dialogue=True)
    with pytest.raises(RuntimeError):
        compact.facts("strict")
