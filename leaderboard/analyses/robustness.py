"""Robustness, tested: per entry of a board (the live public one or a published snapshot),
the change of the primary metric from the first condition to each other one, with the paired
interval and p-value over the same dialogues (``scoring``'s paired test on the submission's
per-dialogue statistics of the two conditions, on the board's part of the split), and a chart
of the changes.

An entry is the submission ranked on the first condition; its change on another condition is
that same submission's, so both sides are the same system. The change is the other condition
minus the first, in points, as the board's Change column writes it: negative when the system
loses (for a lower-is-better metric, positive). Aggregates only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leaderboard.analyses.pairwise import paired
from leaderboard.challenges.models import Phase
from leaderboard.numbers import signed
from leaderboard.plotting import FONT, baseline_method, text, wrap
from leaderboard.rankings.board import Leaderboard, counted
from leaderboard.rankings.charts import CHART_LIMIT, CONDITION_SYMBOLS
from leaderboard.rankings.dialogues import part_dialogues


@dataclass(frozen=True)
class Change:
    key: str
    label: str
    #: other minus first, in points; interval and p-value of the paired test
    change: float | None = None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    significant: bool = False
    note: str = ""


@dataclass(frozen=True)
class EntryChanges:
    rank: int
    team_name: str
    method_name: str
    is_baseline: bool
    submission_id: int
    first: float | None
    changes: tuple[Change, ...]


def changes(phase: Phase, board: Leaderboard) -> tuple[str, list[EntryChanges]]:
    """(the first condition's label, one line per entry ranked on it)."""
    if len(board.conditions) < 2:
        return (board.conditions[0].label if board.conditions else ""), []
    challenge = phase.challenge
    metric = challenge.scoring_task().metric(challenge.primary)
    first, others = board.conditions[0], board.conditions[1:]
    ids = [r.submission_id for r in first.rows]
    stored: dict[tuple[int, int], tuple[int, Any, Any]] = {}
    for pk, sid, condition_id, reference_id, column in counted(phase, only=ids).values_list(
        "pk",
        "submission_id",
        "condition_id",
        "reference_id",
        "primary_ratios",
    ):
        stored[(sid, condition_id)] = (pk, reference_id, column)
    ratios = part_dialogues(phase, board.part, list(stored.values()), metric.name)
    out: list[EntryChanges] = []
    for row in first.rows:
        here = stored.get((row.submission_id, first.condition_id))
        base = ratios.get(here[0]) if here else None
        found: list[Change] = []
        for other in others:
            there = stored.get((row.submission_id, other.condition_id))
            other_ratios = ratios.get(there[0]) if there else None
            if base is None or other_ratios is None:
                found.append(Change(other.key, other.label, note="not scored on both"))
                continue
            test = paired(base, other_ratios, metric, challenge.resampling())
            if test is None:
                found.append(
                    Change(other.key, other.label, note="not the same dialogues: no paired test")
                )
                continue
            found.append(
                Change(
                    other.key,
                    other.label,
                    change=-test.difference,
                    low=-test.ci[1],
                    high=-test.ci[0],
                    p_value=test.p_value,
                    significant=test.significant,
                )
            )
        value = base.value(metric.name) if base is not None else None
        out.append(
            EntryChanges(
                row.rank,
                row.team_name,
                row.method_name,
                row.is_baseline,
                row.submission_id,
                value,
                tuple(found),
            )
        )
    return first.label, out


def chart(first: str, entries: list[EntryChanges], metric_label: str) -> dict[str, Any]:
    """Each entry's change per condition with its interval: one marker shape per condition,
    a line at zero (no change)."""
    shown = entries[:CHART_LIMIT]
    # long names on two lines, so the plot keeps its width on a phone
    labels = [
        wrap(f"{text(e.team_name)}: {text(baseline_method(e.method_name))}", 16)
        if e.is_baseline
        else wrap(text(e.team_name), 16)
        for e in shown
    ]
    keys = [(c.key, c.label) for c in shown[0].changes] if shown else []
    traces = []
    for i, (key, label) in enumerate(keys):
        points = [next(c for c in e.changes if c.key == key) for e in shown]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": text(label),
                "x": [p.change for p in points],
                "y": labels,
                "marker": {"symbol": CONDITION_SYMBOLS[i % len(CONDITION_SYMBOLS)], "size": 9},
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": [
                        None if p.high is None or p.change is None else p.high - p.change
                        for p in points
                    ],
                    "arrayminus": [
                        None if p.low is None or p.change is None else p.change - p.low
                        for p in points
                    ],
                    "thickness": 1.2,
                },
                "hovertemplate": [
                    f"{y.replace('<br>', ' ')}: {signed(p.change)}<extra>{text(label)}</extra>"
                    for y, p in zip(labels, points, strict=True)
                ],
            }
        )
    return {
        "data": traces,
        "layout": {
            "font": FONT,
            "margin": {"l": 10, "r": 10, "t": 40, "b": 50},
            "paper_bgcolor": "#fff",
            "plot_bgcolor": "#fff",
            "height": 140 + 28 * len(shown),
            "xaxis": {
                "title": {"text": f"{text(metric_label)} change, points"},
                "zeroline": True,
                "zerolinecolor": "#1b1f24",
            },
            "yaxis": {"autorange": "reversed", "automargin": True},
            # above the plot: below it the legend would sit on the axis title
            "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        },
    }
