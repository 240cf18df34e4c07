"""Metrics of a Result on the public and private parts of the phase's split.

Nothing is re-scored: the scorer stored each dialogue's sufficient statistics (correct turns
and turns for JGA; substitutions, deletions, insertions and gold slots for SER) in
``Result.breakdown["per_dialogue"]``. A metric on a subset is the scorer's ratio of sums over
the subset's dialogues, and its interval is ``scoring.stats.bootstrap_ci`` over those
dialogues with the challenge's seed and sample count, exactly as the scorer computes them for
the whole reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from leaderboard.challenges.split import PRIVATE, PUBLIC, select
from leaderboard.rankings.groups import columns
from scoring.stats import bootstrap_ci

METRICS = ("jga", "ser")


def _ratio(numerator: Sequence[float], denominator: Sequence[float]) -> float | None:
    # The scorer's definition of every ranked metric (scoring.stats): 100 * sum / sum.
    total = sum(denominator)
    return None if total == 0 else 100.0 * sum(numerator) / total


def _finite(value: float) -> float | None:
    return None if value != value else float(value)  # NaN -> None


def subset_metrics(dialogues: Sequence[dict[str, Any]], settings: Any) -> dict[str, Any]:
    """``{"jga", "jga_low", "jga_high", "ser", "ser_low", "ser_high"}`` over ``dialogues``."""
    out: dict[str, Any] = {}
    if not dialogues:
        return {f"{m}{s}": None for m in METRICS for s in ("", "_low", "_high")}
    pairs = {}
    for metric in METRICS:
        _, numerator, denominator = columns(metric, dialogues)
        out[metric] = _ratio(numerator, denominator)
        pairs[metric] = (numerator, denominator)
    intervals = bootstrap_ci(pairs, settings.n_boot, settings.seed, settings.level)
    for metric in METRICS:
        low, high = intervals[metric]
        out[f"{metric}_low"], out[f"{metric}_high"] = _finite(low), _finite(high)
    return out


def split_columns(phase: Any, breakdown: dict[str, Any], settings: Any) -> dict[str, Any]:
    """The ``public_*`` and ``private_*`` columns of a Result from its stored breakdown."""
    dialogues = list(breakdown.get("per_dialogue") or [])
    values: dict[str, Any] = {}
    for part in (PUBLIC, PRIVATE):
        for name, value in subset_metrics(select(phase, part, dialogues), settings).items():
            values[f"{part}_{name}"] = value
    return values


def recompute(phase: Any) -> int:
    """Recompute the split columns of every Result of ``phase`` (after its split changed)."""
    from leaderboard.submissions.metrics import part_columns
    from leaderboard.submissions.models import Result

    settings = phase.challenge.scoring_settings()
    n = 0
    for result in Result.objects.filter(submission__phase=phase).only("pk", "breakdown"):
        columns = part_columns(phase, result.breakdown or {})
        if (result.breakdown or {}).get("per_dialogue"):  # dstc11's typed JGA/SER columns
            columns.update(split_columns(phase, result.breakdown or {}, settings))
        Result.objects.filter(pk=result.pk).update(**columns)
        n += 1
    return n
