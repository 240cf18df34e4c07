"""A scorer result as the columns of a Result, for any task (see ``Result``).

The metrics of each part of a phase's split come from the stored per-dialogue statistics:
every metric is ``100 * sum(numerators) / sum(denominators)`` over the part's dialogues, and
its interval is ``scoring.stats.bootstrap_ci`` over them with the challenge's bootstrap
settings, exactly as the scorer computes them on the whole reference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from django.utils import timezone

from leaderboard.challenges.models import Phase
from leaderboard.challenges.split import PARTS, part_ratios
from leaderboard.submissions import ratios as stored
from scoring import TaskResult
from scoring.stats import bootstrap_ci
from scoring.taskapi import DialogueRatios, json_ready


def _number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def _typed(
    prefix: str, phase: Phase, metrics: Mapping[str, Any], intervals: Mapping[str, Any]
) -> dict[str, Any]:
    """The typed ranking columns (``primary``, its interval, ``tiebreak``) with ``prefix``."""
    challenge = phase.challenge
    low, high = (intervals.get(challenge.primary) or [None, None])[:2]
    return {
        f"{prefix}primary": metrics.get(challenge.primary),
        f"{prefix}primary_low": low,
        f"{prefix}primary_high": high,
        f"{prefix}tiebreak": metrics.get(challenge.tiebreak),
    }


def _values(ratios: DialogueRatios, phase: Phase) -> tuple[dict[str, Any], dict[str, Any]]:
    """(metrics, intervals) of ``ratios``: every metric with an interval where it has one."""
    resampling = phase.challenge.resampling()
    interval = {m.name for m in phase.challenge.scoring_task().metrics if m.interval}
    metrics = {m: _number(ratios.value(m)) for m in ratios.columns}
    wanted = {
        m: ratios.columns[m] for m in ratios.columns if m in interval and metrics[m] is not None
    }
    found = (
        bootstrap_ci(wanted, resampling.n_boot, resampling.seed, resampling.level) if wanted else {}
    )
    return metrics, {m: [_number(lo), _number(hi)] for m, (lo, hi) in found.items()}


def part_columns(phase: Phase, ratios: DialogueRatios) -> dict[str, Any]:
    """``part_metrics`` and the typed ``public_*``/``private_*`` ranking columns (all empty
    when the phase has no split)."""
    columns: dict[str, Any] = {"part_metrics": {}}
    for part in PARTS:
        metrics: dict[str, Any] = {}
        intervals: dict[str, Any] = {}
        if phase.has_split:
            metrics, intervals = _values(part_ratios(phase, part, ratios), phase)
            columns["part_metrics"][part] = {"metrics": metrics, "intervals": intervals}
        columns.update(_typed(f"{part}_", phase, metrics, intervals))
    return columns


def result_columns(result: TaskResult, phase: Phase) -> dict[str, Any]:
    """Every column of the Result of ``result`` in ``phase`` but its keys."""
    metrics = {k: _number(v) for k, v in result.metrics().items()}
    intervals = {k: [_number(lo), _number(hi)] for k, (lo, hi) in result.intervals().items()}
    return {
        "metrics": metrics,
        "intervals": intervals,
        **_typed("", phase, metrics, intervals),
        **part_columns(phase, result.dialogues),
        "breakdown": json_ready(
            {
                "format": result.format,
                "counts": dict(result.counts),
                "details": dict(result.details),
                "warnings": list(result.warnings),
            }
        ),
        **stored.columns(result.dialogues, phase.challenge.primary),
        "created_at": timezone.now(),
    }
