"""Error analysis of a team's own results, read from ``Result.breakdown`` (what the scorer
stored), and the comparison of two of its submissions with ``scoring``'s paired test.

Nothing here re-scores: per-slot counts, per-domain JGA and per-dialogue counts come from the
scorer. JGA by turn position is the one aggregate the scorer does not store; it is a count of
the scorer's own per-turn verdicts (``turn_correct``) grouped by position.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leaderboard.rankings.charts import FONT, text
from leaderboard.rankings.groups import columns, comparable
from leaderboard.submissions.models import Result
from scoring.errors import ScoringError
from scoring.stats import PairedTest, paired_test

#: How many dialogues the "most errors" list shows.
WORST_DIALOGUES = 10
#: How many dialogues each side of a comparison lists.
DIFFERING_DIALOGUES = 50


def _dialogues(result: Result) -> list[dict[str, Any]]:
    return list((result.breakdown or {}).get("per_dialogue") or [])


def metric_rows(result: Result, specs: list[dict[str, Any]], task: str) -> list[dict[str, Any]]:
    """The task's metrics this result has (label, direction, value and interval), in the
    task's order; for dstc11 only those its own facts do not already show (seen/unseen)."""
    shown = {"jga", "ser", "slot_f1"} if task == "dstc11" else set()
    metrics, intervals = result.metrics or {}, result.intervals or {}
    rows = []
    for spec in specs:
        name = spec["name"]
        if name in shown or name not in metrics:
            continue
        low, high = (intervals.get(name) or [None, None])[:2]
        rows.append({**spec, "value": metrics[name], "low": low, "high": high})
    return rows


def slot_errors(result: Result) -> dict[str, Any]:
    """Per-slot S/D/I rows sorted by total errors, and their totals."""
    per_slot = (result.breakdown or {}).get("per_slot") or {}
    rows = [
        {"name": name, **values, "errors": values["sub"] + values["del"] + values["ins"]}
        for name, values in per_slot.items()
    ]
    rows.sort(key=lambda r: (-r["errors"], r["name"]))
    totals = {k: sum(r[k] for r in rows) for k in ("sub", "del", "ins", "n_ref", "errors")}
    return {"rows": rows, "totals": totals}


def by_position(result: Result) -> list[dict[str, Any]]:
    """For each 1-based user-turn position: turns at that position and how many the scorer
    marked correct (errors carry over in cumulative states, so this usually falls)."""
    turns: list[int] = []
    correct: list[int] = []
    for dialogue in _dialogues(result):
        for position, flag in enumerate(dialogue.get("turn_correct", "")):
            if position == len(turns):
                turns.append(0)
                correct.append(0)
            turns[position] += 1
            correct[position] += flag == "1"
    return [
        {"position": i + 1, "turns": n, "correct": c, "jga": 100.0 * c / n}
        for i, (n, c) in enumerate(zip(turns, correct, strict=True))
    ]


def worst_dialogues(result: Result, limit: int = WORST_DIALOGUES) -> list[dict[str, Any]]:
    """The dialogues with the most slot errors (then the most wrong turns)."""
    rows = [
        {**d, "errors": d["sub"] + d["del"] + d["ins"], "wrong": d["turns"] - d["correct"]}
        for d in _dialogues(result)
    ]
    rows.sort(key=lambda d: (-d["errors"], -d["wrong"], d["id"]))
    return [d for d in rows[:limit] if d["errors"] or d["wrong"]]


def result_figures(result: Result, positions: list[dict[str, Any]]) -> dict[str, Any]:
    """Plotly figures of one result: S/D/I heatmap, per-domain JGA, JGA by turn position."""
    key = result.condition.key
    label = text(result.condition.label)
    slots = slot_errors(result)["rows"]
    domains = sorted(((result.breakdown or {}).get("per_domain") or {}).items())
    base = {"font": FONT, "paper_bgcolor": "#fff", "plot_bgcolor": "#fff"}
    figures: dict[str, Any] = {}
    if slots:
        figures[f"chart-slots-{key}"] = {
            "data": [
                {
                    "type": "heatmap",
                    "x": ["Substitutions", "Deletions", "Insertions"],
                    "y": [text(s["name"]) for s in slots],
                    "z": [[s["sub"], s["del"], s["ins"]] for s in slots],
                    "colorscale": "Reds",
                    "texttemplate": "%{z}",
                    "hovertemplate": "%{y}<br>%{x}: %{z}<extra></extra>",
                    "colorbar": {"title": {"text": "errors"}},
                }
            ],
            "layout": {
                **base,
                "title": {"text": f"{label}: errors per slot", "x": 0, "font": {"size": 15}},
                "height": max(220, 22 * len(slots) + 110),
                "yaxis": {"autorange": "reversed", "automargin": True, "type": "category"},
                "xaxis": {"side": "top"},
                "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
            },
        }
    if domains:
        figures[f"chart-domains-{key}"] = {
            "data": [
                {
                    "type": "bar",
                    "x": [text(name) for name, _ in domains],
                    "y": [values["jga"] for _, values in domains],
                    "customdata": [[values["correct"], values["turns"]] for _, values in domains],
                    "marker": {"color": "#0b5cad"},
                    "hovertemplate": (
                        "%{x}: JGA %{y:.2f}<br>%{customdata[0]} of %{customdata[1]} turns"
                        "<extra></extra>"
                    ),
                }
            ],
            "layout": {
                **base,
                "title": {"text": f"{label}: JGA per domain", "x": 0, "font": {"size": 15}},
                "height": 300,
                "yaxis": {"title": {"text": "JGA (%)"}, "rangemode": "tozero"},
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
                    "y": [p["jga"] for p in positions],
                    "customdata": [[p["correct"], p["turns"]] for p in positions],
                    "marker": {"color": "#d95f02"},
                    "hovertemplate": (
                        "user turn %{x}: JGA %{y:.2f}<br>%{customdata[0]} of %{customdata[1]} "
                        "dialogues<extra></extra>"
                    ),
                }
            ],
            "layout": {
                **base,
                "title": {"text": f"{label}: JGA by turn position", "x": 0, "font": {"size": 15}},
                "height": 300,
                "xaxis": {"title": {"text": "user turn in the dialogue"}, "dtick": 1},
                "yaxis": {"title": {"text": "JGA (%)"}, "rangemode": "tozero"},
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
    #: metric -> paired test of A minus B (None when the results are not comparable)
    tests: dict[str, PairedTest | None]
    #: dialogues whose every turn A gets right and B does not, and the reverse
    only_a: list[dict[str, Any]]
    only_b: list[dict[str, Any]]
    #: turns A gets right and B wrong, and the reverse
    turns_only_a: int
    turns_only_b: int
    comparable: bool


def compare(a_results: list[Result], b_results: list[Result], scorer: Any) -> list[Any]:
    """Compare two submissions condition by condition (A minus B) on the shared reference."""
    b_by_condition = {r.condition_id: r for r in b_results}
    out = []
    for a in a_results:
        b = b_by_condition.get(a.condition_id)
        if b is None:
            continue
        da, db = _dialogues(a), _dialogues(b)
        same = a.reference_id == b.reference_id and comparable(da, db)
        tests: dict[str, PairedTest | None] = {}
        only_a: list[dict[str, Any]] = []
        only_b: list[dict[str, Any]] = []
        turns_a = turns_b = 0
        if same:
            for metric in ("jga", "ser"):
                _, num_a, den = columns(metric, da)
                _, num_b, _ = columns(metric, db)
                try:
                    tests[metric] = paired_test(
                        metric, num_a, num_b, den, scorer.n_boot, scorer.seed, scorer.level
                    )
                except ScoringError:
                    tests[metric] = None
            for x, y in zip(da, db, strict=True):
                right_a, right_b = x["correct"] == x["turns"], y["correct"] == y["turns"]
                pairs = list(zip(x["turn_correct"], y["turn_correct"], strict=False))
                gained = sum(1 for p, q in pairs if p == "1" and q == "0")
                lost = sum(1 for p, q in pairs if p == "0" and q == "1")
                turns_a += gained
                turns_b += lost
                row = {"id": x["id"], "turns": x["turns"], "a": x["correct"], "b": y["correct"]}
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
