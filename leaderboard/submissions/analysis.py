"""Error analysis of a team's own results, read from what the scorer stored (``Result``), and
the comparison of two of its submissions with ``scoring``'s paired test.

Nothing here re-scores: the metrics, the task's breakdowns (per slot, per domain, when the
task reports them) and the per-dialogue statistics come from the scorer. Accuracy by turn
position and the dialogues with the most wrong turns are counts of the scorer's own per-turn
verdicts on the primary metric (``Result.dialogues["turns"]``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from leaderboard.plotting import FONT, text
from leaderboard.spreadsheets import spreadsheet_safe
from leaderboard.submissions import ratios
from leaderboard.submissions.models import Result
from scoring import PairedTest, Resampling, Task
from scoring.taskapi import DialogueRatios, paired_tests

#: How many dialogues the "most errors" list shows.
WORST_DIALOGUES = 10
#: How many dialogues each side of a comparison lists.
DIFFERING_DIALOGUES = 50


def _ratios(result: Result) -> DialogueRatios | None:
    return ratios.loaded(result.dialogues, result.ratios)


def _details(result: Result) -> dict[str, Any]:
    return dict((result.breakdown or {}).get("details") or {})


def metric_rows(result: Result, task: Task, part: str | None = None) -> list[dict[str, Any]]:
    """The task's metrics this result has (label, direction, value and interval), in the
    task's order, on ``part`` of the split (None: the whole reference)."""
    metrics, intervals = result.part(part)
    rows = []
    for spec in task.metrics:
        if spec.name not in metrics:
            continue
        low, high = (intervals.get(spec.name) or [None, None])[:2]
        rows.append({**spec.as_dict(), "value": metrics[spec.name], "low": low, "high": high})
    return rows


def summary(results: Sequence[Result], task: Task, changed: Sequence[str]) -> dict[str, Any]:
    """One row per condition (``results`` in the phase's order): every metric the results have,
    with its interval, and for each metric named in ``changed`` the change from the first
    condition (None on the first row, or where either value is missing)."""
    rows = [(result, {m["name"]: m for m in metric_rows(result, task)}) for result in results]
    names = {name for _, metrics in rows for name in metrics}
    columns = [spec.as_dict() for spec in task.metrics if spec.name in names]
    moved = [task.metric(name).as_dict() for name in dict.fromkeys(changed) if name in names]
    first = rows[0][1] if rows else {}
    out = []
    for n, (result, metrics) in enumerate(rows):
        changes = []
        for spec in moved:
            here = (metrics.get(spec["name"]) or {}).get("value")
            base = (first.get(spec["name"]) or {}).get("value")
            changes.append(None if n == 0 or here is None or base is None else here - base)
        out.append(
            {
                "result": result,
                "cells": [metrics.get(c["name"]) for c in columns],
                "changes": changes,
            }
        )
    return {"columns": columns, "changed": moved, "rows": out}


def correctness_csv(results: Sequence[Result]) -> str:
    """The scorer's per-turn verdicts on the primary metric as CSV: condition, dialogue id,
    1-based user turn, 1 right / 0 wrong. Ids are the reference's, which the team already has;
    no gold value is in the stored verdicts."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["condition", "dialogue_id", "turn", "correct"])
    for result in results:
        data = result.dialogues or {}
        for dialogue_id, marks in zip(data.get("ids") or [], data.get("turns") or [], strict=False):
            for turn, mark in enumerate(marks, start=1):
                writer.writerow(
                    [result.condition.key, spreadsheet_safe(dialogue_id), turn, int(mark == "1")]
                )
    return out.getvalue()


def slot_errors(result: Result) -> dict[str, Any]:
    """Per-slot S/D/I rows sorted by total errors, and their totals (empty when the task
    reports no per-slot counts)."""
    per_slot = _details(result).get("per_slot") or {}
    rows = [
        {"name": name, **values, "errors": values["sub"] + values["del"] + values["ins"]}
        for name, values in per_slot.items()
    ]
    rows.sort(key=lambda r: (-r["errors"], r["name"]))
    totals = {k: sum(r[k] for r in rows) for k in ("sub", "del", "ins", "n_ref", "errors")}
    return {"rows": rows, "totals": totals}


def domains(result: Result) -> list[dict[str, Any]]:
    """Per-domain rows (turns, correct, and the accuracy of the per-turn verdicts as ``jga``)
    when the task reports them."""
    per_domain = _details(result).get("per_domain") or {}
    return [{"name": name, **values} for name, values in sorted(per_domain.items())]


def by_position(result: Result) -> list[dict[str, Any]]:
    """For each 1-based turn position: turns at that position and how many the scorer
    marked right (errors carry over in cumulative states, so this usually falls)."""
    turns: list[int] = []
    correct: list[int] = []
    for marks in (result.dialogues or {}).get("turns") or []:
        for position, flag in enumerate(marks):
            if position == len(turns):
                turns.append(0)
                correct.append(0)
            turns[position] += 1
            correct[position] += flag == "1"
    return [
        {"position": i + 1, "turns": n, "correct": c, "accuracy": 100.0 * c / n}
        for i, (n, c) in enumerate(zip(turns, correct, strict=True))
    ]


def worst_dialogues(result: Result, limit: int = WORST_DIALOGUES) -> list[dict[str, Any]]:
    """The dialogues with the most wrong turns (then the larger share of wrong turns)."""
    data = result.dialogues or {}
    rows = [
        {"id": dialogue_id, "turns": len(marks), "wrong": marks.count("0"), "marks": marks}
        for dialogue_id, marks in zip(data.get("ids") or [], data.get("turns") or [], strict=False)
    ]
    rows.sort(key=lambda d: (-d["wrong"], -d["wrong"] / max(d["turns"], 1), d["id"]))
    return [d for d in rows[:limit] if d["wrong"]]


def result_figures(
    result: Result, positions: list[dict[str, Any]], accuracy: str
) -> dict[str, Any]:
    """Plotly figures of one result: the per-domain accuracy (for tasks that report it) and the
    accuracy by turn position; ``accuracy`` is the label of the metric the per-turn verdicts
    are on (the task's primary metric). Per-slot errors are a table, not a chart."""
    key = result.condition.key
    label = text(result.condition.label)
    metric = text(accuracy)
    per_domain = domains(result)
    base = {"font": FONT, "paper_bgcolor": "#fff", "plot_bgcolor": "#fff"}
    figures: dict[str, Any] = {}
    if per_domain:
        figures[f"chart-domains-{key}"] = {
            "data": [
                {
                    "type": "bar",
                    "x": [text(d["name"]) for d in per_domain],
                    "y": [d["jga"] for d in per_domain],
                    "customdata": [[d["correct"], d["turns"]] for d in per_domain],
                    "marker": {"color": "#0b5cad"},
                    "hovertemplate": (
                        f"%{{x}}: {metric} %{{y:.2f}}<br>%{{customdata[0]}} of "
                        "%{customdata[1]} turns<extra></extra>"
                    ),
                }
            ],
            "layout": {
                **base,
                "title": {"text": f"{label}: {metric} per domain", "x": 0, "font": {"size": 15}},
                "height": 300,
                "yaxis": {"title": {"text": f"{metric} (%)"}, "rangemode": "tozero"},
                "xaxis": {"type": "category"},
                "margin": {"l": 60, "r": 10, "t": 40, "b": 40},
            },
        }
    if positions:
        figures[f"chart-positions-{key}"] = {
            "data": [
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "x": [p["position"] for p in positions],
                    "y": [p["accuracy"] for p in positions],
                    "customdata": [[p["correct"], p["turns"]] for p in positions],
                    "marker": {"color": "#d95f02"},
                    "hovertemplate": (
                        f"turn %{{x}}: {metric} %{{y:.2f}}<br>%{{customdata[0]}} of "
                        "%{customdata[1]} "
                        "dialogues<extra></extra>"
                    ),
                }
            ],
            "layout": {
                **base,
                "title": {
                    "text": f"{label}: {metric} by turn position",
                    "x": 0,
                    "font": {"size": 15},
                },
                "height": 300,
                "xaxis": {"title": {"text": "turn in the dialogue"}, "dtick": 1},
                "yaxis": {"title": {"text": f"{metric} (%)"}, "rangemode": "tozero"},
                "margin": {"l": 60, "r": 10, "t": 40, "b": 50},
            },
        }
    return figures


@dataclass(frozen=True)
class ConditionComparison:
    key: str
    label: str
    a: Result
    b: Result
    #: metric label -> paired test of A minus B, for every metric the two can be tested on
    tests: dict[str, PairedTest]
    #: dialogues whose every turn A gets right and B does not, and the reverse
    only_a: list[dict[str, Any]]
    only_b: list[dict[str, Any]]
    #: turns A gets right and B wrong, and the reverse
    turns_only_a: int
    turns_only_b: int
    comparable: bool


def compare(
    a_results: list[Result], b_results: list[Result], task: Task, resampling: Resampling
) -> list[ConditionComparison]:
    """Compare two submissions condition by condition (A minus B) on the shared reference."""
    b_by_condition = {r.condition_id: r for r in b_results}
    out = []
    for a in a_results:
        b = b_by_condition.get(a.condition_id)
        if b is None:
            continue
        ra, rb = _ratios(a), _ratios(b)
        same = (
            a.reference_id == b.reference_id
            and ra is not None
            and rb is not None
            and ra.ids == rb.ids
            and len(ra.turns) == len(rb.turns)
        )
        tests: dict[str, PairedTest] = {}
        only_a: list[dict[str, Any]] = []
        only_b: list[dict[str, Any]] = []
        turns_a = turns_b = 0
        if same and ra is not None and rb is not None:
            labels = {m.name: m.label for m in task.metrics}
            tests = {
                labels[name]: test
                for name, test in paired_tests(ra, rb, task.metrics, resampling).items()
            }
            for dialogue_id, x, y in zip(ra.ids, ra.turns, rb.turns, strict=True):
                turns_a += sum(1 for p, q in zip(x, y, strict=False) if p == "1" and q == "0")
                turns_b += sum(1 for p, q in zip(x, y, strict=False) if p == "0" and q == "1")
                row = {"id": dialogue_id, "turns": len(x), "a": x.count("1"), "b": y.count("1")}
                right_a, right_b = "0" not in x, "0" not in y
                if right_a and not right_b:
                    only_a.append(row)
                elif right_b and not right_a:
                    only_b.append(row)
        out.append(
            ConditionComparison(
                key=a.condition.key,
                label=a.condition.label,
                a=a,
                b=b,
                tests=tests,
                only_a=only_a,
                only_b=only_b,
                turns_only_a=turns_a,
                turns_only_b=turns_b,
                comparable=same,
            )
        )
    return out
