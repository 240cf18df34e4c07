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
