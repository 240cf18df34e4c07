"""Intervals from cached resample counts equal numpy's, to the last bit."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import refcache, resample, stats
from scoring.synth import make_gold, make_prediction


def _same(a: dict[str, tuple[float, float]], b: dict[str, tuple[float, float]]) -> bool:
    return a.keys() == b.keys() and all(
        all((math.isnan(x) and math.isnan(y)) or x == y for x, y in zip(a[k], b[k], strict=True))
        for k in a
    )


def test_the_counts_are_how_often_each_dialogue_is_drawn() -> None:
    # The draws as scoring.stats documents them: row b is default_rng(seed).integers(0, n, n).
    n, n_boot, seed = 7, 50, 3
    rows = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    counts = stats.resample_counts(n, n_boot, seed)
    assert counts is not None
    for b, row in enumerate(rows):
        for i in range(n):
            assert counts[i * n_boot + b] == list(row).count(i)


columns = st.integers(min_value=1, max_value=40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 30), min_size=n, max_size=n),
        st.lists(st.integers(0, 40), min_size=n, max_size=n),
        st.lists(st.integers(0, 10**6), min_size=n, max_size=n),
        st.lists(st.integers(0, 10**6), min_size=n, max_size=n),
    )
)


@settings(max_examples=60, deadline=None)
@given(
    columns,
    st.sampled_from([1, 2, 19, 100, 333]),
    st.integers(0, 2**32),
    st.sampled_from([0.5, 0.9, 0.95, 0.99]),
)
def test_intervals_equal_numpys(
    data: tuple[list[int], list[int], list[int], list[int]], n_boot: int, seed: int, level: float
) -> None:
    a, b, c, d = data
    n = len(a)
    counts = stats.resample_counts(n, n_boot, seed)
    assert counts is not None
    draws = resample.Draws(n, n_boot, seed, counts)
    pairs = {"small": (a, b), "large": (c, d)}
    packed = resample.bootstrap_ci(draws, pairs, n_boot, seed, level)
    assert packed is not None
    assert _same(packed, stats.bootstrap_ci(pairs, n_boot, seed, level))


def test_other_columns_and_settings_go_to_numpy() -> None:
    n, n_boot, seed = 5, 40, 9
    counts = stats.resample_counts(n, n_boot, seed)
    assert counts is not None
    draws = resample.Draws(n, n_boot, seed, counts)
    good = [1, 2, 3, 4, 5]
    for pairs in (
        {"x": ([1, -2, 3, 4, 5], good)},  # negative (a paired difference)
        {"x": ([1.5, 2, 3, 4, 5], good)},  # not a whole number
        {"x": ([1, 2, 3], [1, 2, 3])},  # another reference's size
    ):
        assert resample.bootstrap_ci(draws, pairs, n_boot, seed, 0.95) is None
        packed = resample.PackedStatistics(draws).bootstrap_ci(pairs, n_boot, seed, 0.95)
        assert _same(packed, stats.bootstrap_ci(pairs, n_boot, seed, 0.95))
    pairs = {"x": (good, good)}
    assert resample.bootstrap_ci(draws, pairs, n_boot, seed + 1, 0.95) is None
    assert resample.bootstrap_ci(draws, pairs, n_boot + 1, seed, 0.95) is None


def test_a_later_run_computes_its_intervals_without_numpy(tmp_path: Path) -> None:
    gold = make_gold(25, seed=21)
    gold_path = tmp_path / "gold.json"
    gold_path.write_text(json.dumps(gold))
    pred_path = tmp_path / "run.json"
    pred_path.write_text(json.dumps(make_prediction(gold, 0.5, seed=22)))
    argv = ["score", "--gold", str(gold_path), "--pred", str(pred_path), "--json"]

    def run(no_fork: bool) -> tuple[object, bool]:
        # Without fork, the statistics would be computed here, with numpy, if they had to be.
        program = (
            "import json, os, sys\n"
            + ("del os.fork\n" if no_fork else "")
            + "from scoring.cli import main\n"
            + f"assert main({argv!r}) == 0\n"
            + "print(json.dumps('numpy' in sys.modules))\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        result, numpy_loaded = done.stdout.splitlines()
        return json.loads(result), json.loads(numpy_loaded)

    first, _ = run(no_fork=False)  # reads the gold; caches it and the resample counts
    later, numpy_loaded = run(no_fork=True)
    assert later == first
    assert not numpy_loaded


def test_without_fork_the_gold_is_still_read_once_and_kept(
    tmp_path: Path, reference_cache: Path
) -> None:
    gold = make_gold(12, seed=31)
    gold_path = tmp_path / "gold.json"
    gold_path.write_text(json.dumps(gold))
    pred_path = tmp_path / "run.json"
    pred_path.write_text(json.dumps(make_prediction(gold, 0.5, seed=32)))
    argv = ["score", "--gold", str(gold_path), "--pred", str(pred_path), "--json"]
    program = f"import os\ndel os.fork\nfrom scoring.cli import main\nassert main({argv!r}) == 0\n"
    outputs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
        name = refcache.key(gold_path.read_bytes(), "default")
        assert refcache.load(reference_cache, name) is not None
    assert outputs[0] == outputs[1]
