"""A scorer result as Result columns, for any task of ``scoring.tasks``.

Every task returns a ``scoring.taskapi.TaskResult``: values and intervals per metric, and per
dialogue the numerator and denominator of each metric (every metric is ``100 * sum / sum``).
We store:

- ``metrics`` / ``intervals``: every metric of the whole reference (JSON, for pages and API);
- ``breakdown["ratios"]``: the per-dialogue numerators and denominators, from which the public
  and private parts of a split (``part_metrics``) and the rank groups are computed without
  re-scoring;
- ``primary`` (+ low/high, whole and per part): the ranked metric in typed columns, so the
  ORM ranks any task (``Window(Rank())``, NULLs last) in the metric's direction;
- for ``dstc11`` also its established typed JGA/SER columns and native breakdown.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils import timezone

from leaderboard.challenges.split import PRIVATE, PUBLIC, select
from scoring.stats import bootstrap_ci


def number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def json_safe(value: object) -> object:
    """NaN is not JSON: Postgres' jsonb refuses it. Store it as null."""
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


#: dstc11 rows stored before ``ratios`` existed: metric -> (numerator, denominator) getters
_NATIVE = {
    "jga": (lambda d: d["correct"], lambda d: d["turns"]),
    "ser": (lambda d: d["sub"] + d["del"] + d["ins"], lambda d: d["n_ref"]),
}


def ratio_rows(breakdown: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Per-dialogue ``{"id", metric: [numerator, denominator], ...}`` of a stored breakdown
    (``ratios``; for older dstc11 rows, derived from the native per-dialogue counts)."""
    breakdown = breakdown or {}
    if breakdown.get("ratios") is not None:
        return list(breakdown["ratios"])
    return [
        {"id": d["id"], **{m: [num(d), den(d)] for m, (num, den) in _NATIVE.items()}}
        for d in breakdown.get("per_dialogue") or []
    ]


def ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float | None:
    total = math.fsum(denominators)
    return None if not total else 100.0 * math.fsum(numerators) / total


def part_values(
    dialogues: Sequence[Mapping[str, Any]], interval_metrics: set[str], resampling: Any
) -> dict[str, Any]:
    """``{"metrics": {..}, "intervals": {..}}`` over ``dialogues`` (ratio of sums, and
    ``scoring.stats.bootstrap_ci`` with the challenge's seed and sample count)."""
    names = [k for k in (dialogues[0] if dialogues else {}) if k != "id"]
    pairs = {
        m: ([float(d[m][0]) for d in dialogues], [float(d[m][1]) for d in dialogues]) for m in names
    }
    values = {m: ratio(*pairs[m]) for m in names}
    wanted = {m: pairs[m] for m in names if m in interval_metrics and values[m] is not None}
    intervals: dict[str, list[float | None]] = {}
    if wanted:
        found = bootstrap_ci(wanted, resampling.n_boot, resampling.seed, resampling.level)
        intervals = {m: [number(lo), number(hi)] for m, (lo, hi) in found.items()}
    return {"metrics": values, "intervals": intervals}


def _typed(prefix: str, primary: str, metrics: Mapping[str, Any], intervals: Mapping[str, Any]):  # type: ignore[no-untyped-def]
    low, high = (intervals.get(primary) or [None, None])[:2]
    return {
        f"{prefix}primary": metrics.get(primary),
        f"{prefix}primary_low": low,
        f"{prefix}primary_high": high,
    }


def part_columns(phase: Any, breakdown: Mapping[str, Any]) -> dict[str, Any]:
    """``part_metrics`` and the typed ``public_primary*``/``private_primary*`` columns."""
    challenge = phase.challenge
    primary = challenge.primary
    interval = {m["name"] for m in challenge.metric_specs() if m["interval"]}
    rows = ratio_rows(breakdown)
    resampling = challenge.resampling()
    parts: dict[str, Any] = {}
    columns: dict[str, Any] = {}
    for part in (PUBLIC, PRIVATE):
        chosen = select(phase, part, rows)
        parts[part] = part_values(chosen, interval, resampling)
        columns.update(
            _typed(f"{part}_", primary, parts[part]["metrics"], parts[part]["intervals"])
        )
    columns["part_metrics"] = parts
    return columns


def result_columns(result: Any, primary: str) -> dict[str, object]:
    """The Result columns of a ``TaskResult`` (before the split columns)."""
    metrics = {k: number(v) for k, v in result.metrics().items()}
    intervals = {k: [number(lo), number(hi)] for k, (lo, hi) in result.intervals().items()}
    columns: dict[str, object] = {
        "metrics": metrics,
        "intervals": intervals,
        **_typed("", primary, metrics, intervals),
        "created_at": timezone.now(),
    }
    native = result.native
    if result.task == "dstc11" and native is not None:
        breakdown: dict[str, Any] = native.as_dict(per_dialogue=True)
        columns.update(
            jga=number(native.jga),
            ser=number(native.ser),
            jga_low=number(native.jga_ci[0]),
            jga_high=number(native.jga_ci[1]),
            ser_low=number(native.ser_ci[0]),
            ser_high=number(native.ser_ci[1]),
            n_ref=native.n_ref,
            sub=native.sub,
            dele=native.dele,
            ins=native.ins,
            slot_f1=number(native.slot_f1),
        )
        if "seen_unseen" in result.details:
            breakdown["seen_unseen"] = result.details["seen_unseen"]
    else:
        breakdown = result.as_dict()
    breakdown["ratios"] = result.dialogues.as_dict()
    columns["breakdown"] = json_safe(breakdown)
    return columns
