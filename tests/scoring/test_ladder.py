"""The parameter-free Ladder (Blum and Hardt, ICML 2015, Algorithm 2) on a sequence worked by
hand (``scoring.ladder``; its rules in docs/scoring.md, "The Ladder").

Four dialogues with 1, 1, 2 and 2 turns (6 turns; mean 1.5 per dialogue); JGA, higher is
better, so a score is shown to the nearest multiple of 100 / 4 = 25 points. A submission's
per-dialogue value is ``100 * (r + (a_i - r * d_i) / 1.5)`` with ``r`` its share of turns
right; below, values are in units of 100/9 points.

1. a = (1, 0, 1, 0): r = 1/3, JGA 33.33; values (7, 1, 5, -1); against l_0 = 0 the
   differences are the values themselves, mean 3, squared deviations 16 + 4 + 4 + 16 = 40,
   s = sqrt(40/3) * 100/9 = 40.57, step s / 2 = 20.29. The first submission is always shown:
   33.33 to the nearest 25 is **25**.
2. a = (1, 1, 1, 0): r = 1/2, JGA 50; values (7.5, 7.5, 4.5, -1.5); minus the shown ones:
   (0.5, 6.5, -0.5, -0.5), mean 1.5, deviations (-1, 5, -2, -2), squares 34: s = sqrt(34/3) *
   100/9 = 37.41, step 18.70. 50 > 25 + 18.70: shown **50**.
3. a = (1, 1, 2, 0): r = 2/3, JGA 66.67; values (8, 8, 10, -2); minus (7.5, 7.5, 4.5, -1.5):
   (0.5, 0.5, 5.5, -0.5), mean 1.5, squares 1 + 1 + 16 + 4 = 22: step sqrt(22/3) * 100/9 / 2
   = 15.05. 66.67 > 50 + 15.05: shown, rounded: 66.67 / 25 = 2.67, so **75**.
4. a = (1, 1, 2, 1): r = 5/6, JGA 83.33; values (8.5, 8.5, 9.5, 3.5) minus (8, 8, 10, -2):
   (0.5, 0.5, -0.5, 5.5), squares again 22: step 15.05. 83.33 < 75 + 15.05 = 90.05: not
   shown, **75** stays (and the shown submission stays the third).
5. a = (1, 1, 1, 1): r = 2/3, JGA 66.67: below the shown score, **75** stays. (Values
   (8, 8, 4, 4), differences (0, 0, -6, 6), squares 0 + 0 + 36 + 36 = 72, step sqrt(24) *
   100/9 / 2 = 27.22.)
6. No per-dialogue statistics: passed over, **75**.
7. a = (1, 1, 2, 2), every turn right: JGA 100; values (9, 9, 9, 9) minus (8, 8, 10, -2):
   (1, 1, -1, 11), mean 3, deviations (-2, -2, -4, 8), squares 88: step sqrt(88/3) * 100/9 /
   2 = 30.09. 100 < 75 + 30.09 = 105.09: still **75** (the rounding up of step 3 raised the
   bar; with 4 dialogues a step is large).
"""

from __future__ import annotations

import math

import pytest

from scoring import ScoringError
from scoring.ladder import climb, rounded

TURNS = [1, 1, 2, 2]
UNIT = 100 / 9


def _run(right):
    return (right, TURNS)


def test_the_ladder_reproduces_the_hand_worked_sequence():
    sequence = [
        _run([1, 0, 1, 0]),
        _run([1, 1, 1, 0]),
        _run([1, 1, 2, 0]),
        _run([1, 1, 2, 1]),
        _run([1, 1, 1, 1]),
        None,
        _run([1, 1, 2, 2]),
    ]
    rungs = climb(sequence, "higher")
    assert [r.shown for r in rungs] == [25, 50, 75, 75, 75, 75, 75]
    assert [r.accepted for r in rungs] == [True, True, True, False, False, False, False]
    values = [r.value for r in rungs]
    assert values == pytest.approx([100 / 3, 50, 200 / 3, 250 / 3, 200 / 3, None, 100])
    steps = [
        math.sqrt(40 / 3) * UNIT / 2,
        math.sqrt(34 / 3) * UNIT / 2,
        math.sqrt(22 / 3) * UNIT / 2,
        math.sqrt(22 / 3) * UNIT / 2,
        math.sqrt(24) * UNIT / 2,
        None,
        math.sqrt(88 / 3) * UNIT / 2,
    ]
    for found, expected in zip((r.step for r in rungs), steps, strict=True):
        assert found == (None if expected is None else pytest.approx(expected, rel=1e-12))
    assert f"{rungs[1].step:.2f}" == "18.70" and f"{rungs[6].step:.2f}" == "30.09"


def test_lower_is_better_mirrors_the_rule_and_one_unit_per_dialogue_gives_the_papers_losses():
    """Slot errors per slot, one slot per dialogue (the paper's per-sample losses): errors
    (1, 1, 0, 0) then (1, 0, 0, 0): losses 50 then 25 points; differences (0, -100, 0, 0):
    mean -25, s = sqrt((25^2 * 3 + 75^2) / 3) = 50, step 50 / 2 = 25; 25 < 50 - 25 is false:
    not shown. Then (0, 0, 0, 0): differences (-100, -100, 0, 0), s = sqrt(4 * 50^2 / 3) =
    57.74, step 28.87: 0 < 50 - 28.87: shown, 0."""
    slots = [1, 1, 1, 1]
    rungs = climb([([1, 1, 0, 0], slots), ([1, 0, 0, 0], slots), ([0, 0, 0, 0], slots)], "lower")
    assert [r.shown for r in rungs] == [50, 50, 0]
    assert [r.step for r in rungs][1:] == pytest.approx([25.0, math.sqrt(4 * 2500 / 3) / 2])


def test_submissions_it_cannot_compare_are_passed_over():
    rungs = climb([([0, 0], [0, 0]), ([1, 1], [2, 2]), ([1, 1, 1], [2, 2, 2])], "higher")
    assert [(r.value, r.accepted, r.shown) for r in rungs] == [
        (None, False, None),  # nothing to count
        (50.0, True, 50.0),
        (50.0, False, 50.0),  # other dialogues than the first one's
    ]
    assert rounded(12.5, 25) == 25 and rounded(12.4, 25) == 0
    with pytest.raises(ScoringError):
        climb([([1], [1])], "sideways")
