"""The parameter-free Ladder: a public leaderboard score that moves only on a significant
improvement (Blum and Hardt, "The Ladder: A Reliable Leaderboard for Machine Learning
Competitions", ICML 2015, Algorithm 2).

The paper's mechanism, for a loss (lower is better) on a holdout set of ``n`` samples: start
with the released score ``R_0 = inf`` and the loss vector ``l_0 = (0, ..., 0)``; for each
submission ``f_t`` in turn, compute its loss vector ``l_t`` (one loss per sample) and the
sample standard deviation ``s`` of ``l_t - l_{t-1}``; if its empirical loss ``R_S(f_t) <
R_{t-1} - s / sqrt(n)`` (a one-sided paired test against the best so far), release
``R_t = [R_S(f_t)]_{1/n}`` (rounded to the nearest multiple of ``1/n``), else keep
``R_t = R_{t-1}`` and ``l_t = l_{t-1}``. The step ``s / sqrt(n)`` is the standard error of
the paired difference, so nothing is tuned.

Here the samples are dialogues, and a metric is a ratio of sums, ``100 * sum(a) / sum(d)``,
not a mean of per-dialogue values. Each dialogue's value is its linearisation (the delta
method for a ratio), ``l_i = 100 * (r + (a_i - r * d_i) / mean(d))`` with ``r = sum(a) /
sum(d)``: their mean is the metric itself, and with one unit per dialogue (``d_i = 1``) they
are the per-dialogue scores, so the paper's rule applies unchanged: ``s`` is the sample
standard deviation (``n - 1``) of the paired differences of these values, the step is
``s / sqrt(n)``, and a released score is rounded to a multiple of ``100 / n`` points. For a
metric where higher is better the rule is mirrored (``R_0 = -inf``; released when above
``R_{t-1} + s / sqrt(n)``). A submission without a value (nothing to count) or on other
dialogues than the first one's is passed over.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from scoring.errors import ScoringError

if TYPE_CHECKING:
    import numpy.typing as npt

    Column = Sequence[float] | npt.NDArray[Any]


@dataclass(frozen=True)
class Rung:
    """One submission's turn on the Ladder."""

    #: the submission's own score, ``100 * sum(a) / sum(d)`` (None: nothing to count)
    value: float | None
    #: the step it had to beat the shown score by, ``s / sqrt(n)`` (None: passed over)
    step: float | None
    #: whether its score is now the one shown
    accepted: bool
    #: the score shown after it (None: nothing shown yet)
    shown: float | None


def values(numerators: Column, denominators: Column) -> tuple[float, Any] | None:
    """(the metric, its per-dialogue linearised values) of one submission; None when its
    denominators sum to zero."""
    a = np.asarray(numerators, dtype=np.float64)
    d = np.asarray(denominators, dtype=np.float64)
    if a.ndim != 1 or a.shape != d.shape:
        raise ScoringError("a submission needs one numerator and one denominator per dialogue.")
    total = float(d.sum())
    if len(d) == 0 or total <= 0:
        return None
    ratio = float(a.sum()) / total
    return 100.0 * ratio, 100.0 * (ratio + (a - ratio * d) / (total / len(d)))


def rounded(value: float, unit: float) -> float:
    """``value`` to the nearest multiple of ``unit`` (halves up): the paper's ``[x]_{1/n}``."""
    return unit * math.floor(value / unit + 0.5)


def climb(submissions: Sequence[tuple[Column, Column] | None], direction: str) -> list[Rung]:
    """The Ladder over ``submissions`` in the order they were made: each one's (numerators,
    denominators) per dialogue, or None for one with no per-dialogue statistics; ``direction``
    is ``higher`` or ``lower`` (which way the metric is better)."""
    if direction not in ("higher", "lower"):
        raise ScoringError(f"unknown direction {direction!r}: use higher or lower.")
    sign = 1.0 if direction == "higher" else -1.0
    shown: float | None = None
    leader: Any = None  # the loss vector of the shown submission (l_0 = 0)
    dialogues: int | None = None
    rungs: list[Rung] = []
    for pair in submissions:
        found = values(*pair) if pair is not None else None
        count = len(pair[0]) if pair is not None else 0
        if found is None or (dialogues is not None and count != dialogues):
            rungs.append(Rung(found[0] if found else None, None, False, shown))
            continue
        dialogues = count
        value, per_dialogue = found
        previous = np.zeros(count) if leader is None else leader
        spread = float(np.std(per_dialogue - previous, ddof=1)) if count > 1 else 0.0
        step = spread / math.sqrt(count)
        # higher is better: R_S(f_t) > R_{t-1} + step; lower: R_S(f_t) < R_{t-1} - step
        accepted = shown is None or sign * (value - shown) > step
        if accepted:
            shown = rounded(value, 100.0 / count)
            leader = per_dialogue
        rungs.append(Rung(value, step, accepted, shown))
    return rungs
