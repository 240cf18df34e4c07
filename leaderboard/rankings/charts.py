"""Plotly figures of a leaderboard, built once from the cached board (no queries).

Figures are plain dicts (``{"data": [...], "layout": {...}}``) handed to the page with
``json_script``; ``plotly.graph_objects`` would validate the same dicts at many times the cost
for a 500-team board, and the page only needs JSON. Every user-controlled string goes through
``leaderboard.plotting.text``.
"""

from __future__ import annotations

from typing import Any

from django.utils.text import slugify

from leaderboard.plotting import FONT, text
from leaderboard.rankings.board import Column, ConditionBoard, Leaderboard, OverviewRow, Row

#: Bar charts and the robustness chart show the first teams only; the tables list everyone.
CHART_LIMIT = 50
TEAM_COLOUR = "#0b5cad"
BASELINE_COLOUR = "#5b3fa0"
CONDITION_COLOURS = ("#0b5cad", "#d95f02", "#1b9e77", "#7570b3", "#e7298a")
MINUS = "\u2212"


def _interval(value: float | None, low: float | None, high: float | None) -> tuple[Any, Any]:
    if value is None or low is None or high is None:
        return None, None
    return high - value, value - low


def _layout(title: str, **extra: Any) -> dict[str, Any]:
    return {
        "title": {"text": text(title), "x": 0, "xanchor": "left", "font": {"size": 15}},
        "font": FONT,
        "margin": {"l": 10, "r": 20, "t": 40, "b": 40},
        "paper_bgcolor": "#fff",
        "plot_bgcolor": "#fff",
        "showlegend": False,
        **extra,
    }


def _label(row: Row | OverviewRow) -> str:
    # a team may have several baselines: each is named by its method
    if row.is_baseline:
        return f"{text(row.team_name)}: {text(row.method_name)} (baseline)"
    return text(row.team_name)


def _cell(row: Row, index: int) -> tuple[Any, Any, Any]:
    cells = row.cells
    return tuple(cells[index]) if index < len(cells) else (None, None, None)  # type: ignore[return-value]


def bar_chart(board: ConditionBoard, column: Column, index: int) -> dict[str, Any]:
    """Horizontal bars of one metric (the board's column ``index``) per team, rank 1 on top,
    95% interval as error bars; baselines in another colour with a hatch pattern (not colour
    alone) and labelled."""
    rows = [r for r in board.rows if _cell(r, index)[0] is not None][:CHART_LIMIT]
    name = text(column.label)
    plus, minus = (
        zip(
            *(_interval(*_cell(r, index)) for r in rows),
            strict=True,
        )
        if rows
        else ((), ())
    )
    trace = {
        "type": "bar",
        "orientation": "h",
        "x": [_cell(r, index)[0] for r in rows],
        "y": [_label(r) for r in rows],
        "error_x": {
            "type": "data",
            "symmetric": False,
            "array": list(plus),
            "arrayminus": list(minus),
            "color": "#1b1f24",
            "thickness": 1.2,
        },
        "marker": {
            "color": [BASELINE_COLOUR if r.is_baseline else TEAM_COLOUR for r in rows],
            "pattern": {"shape": ["/" if r.is_baseline else "" for r in rows]},
        },
        "customdata": [
            [
                text(r.method_name),
                r.group,
                _cell(r, index)[1],
                _cell(r, index)[2],
            ]
            for r in rows
        ],
        "hovertemplate": (
            "<b>%{y}</b><br>%{customdata[0]}<br>"
            + name
            + " %{x:.2f} [%{customdata[2]:.2f}, %{customdata[3]:.2f}]"
            + "<br>rank group %{customdata[1]}<extra></extra>"
        ),
    }
    better = column.better
    return {
        "data": [trace],
        "layout": _layout(
            f"{board.label}: {name} with 95% intervals ({better})",
            height=max(180, 28 * len(rows) + 90),
            xaxis={"title": {"text": f"{name} (%)"}, "rangemode": "tozero", "zeroline": True},
            yaxis={"autorange": "reversed", "automargin": True, "type": "category"},
            bargap=0.25,
        ),
    }


def robustness_chart(board: Leaderboard) -> dict[str, Any]:
    name = text(board.columns[0].label)
    return _robustness(board, name)


def _robustness(board: Leaderboard, name: str) -> dict[str, Any]:
    """One line per team (its overview submission) across the conditions in order; the legend
    names each team with its gap, teams that lose least listed first."""
    conditions = board.conditions
    labels = [text(c.label) for c in conditions]
    rows = [r for r in board.overview if r.gap is not None][:CHART_LIMIT]
    rows.sort(key=lambda r: (r.gap, r.rank))
    traces = []
    for r in rows:
        values = [(r.per_condition.get(c.key) or (None, None))[0] for c in conditions]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": f"{_label(r)}: {MINUS}{r.gap:.2f}"
                if r.gap >= 0
                else f"{_label(r)}: +{-r.gap:.2f}",
                "x": labels,
                "y": values,
                "line": {"dash": "dot" if r.is_baseline else "solid", "width": 2},
                "marker": {"symbol": "diamond" if r.is_baseline else "circle", "size": 8},
                "customdata": [[text(r.method_name), r.gap] for _ in conditions],
                "hovertemplate": (
                    f"<b>{_label(r)}</b><br>%{{customdata[0]}}<br>%{{x}}: {name} %{{y:.2f}}"
                    "<br>drop first → last: %{customdata[1]:.2f} points<extra></extra>"
                ),
            }
        )
    return {
        "data": traces,
        "layout": _layout(
            f"Robustness: {name} per condition",
            height=440,
            showlegend=True,
            legend={
                "title": {"text": f"Team: {name} change, first to last condition"},
                "font": {"size": 12},
                "orientation": "h",
                "y": -0.2,
                "yanchor": "top",
            },
            xaxis={"type": "category", "tickangle": 0},
            yaxis={"title": {"text": f"{name} (%)"}},
            margin={"l": 60, "r": 20, "t": 40, "b": 20},
        ),
    }


def scatter_chart(board: Leaderboard) -> dict[str, Any]:
    """The board's first column (JGA) against its second (SER), one trace per condition, one
    point per team with both intervals; baselines drawn as diamonds."""
    first, second = board.columns[:2]
    y_name, x_name = text(first.label), text(second.label)
    traces = []
    for n, condition in enumerate(board.conditions):
        rows = [
            r for r in condition.rows if _cell(r, 0)[0] is not None and _cell(r, 1)[0] is not None
        ]
        jga = [_interval(*_cell(r, 0)) for r in rows]
        ser = [_interval(*_cell(r, 1)) for r in rows]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": text(condition.label),
                "x": [_cell(r, 1)[0] for r in rows],
                "y": [_cell(r, 0)[0] for r in rows],
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": [s[0] for s in ser],
                    "arrayminus": [s[1] for s in ser],
                    "thickness": 1,
                },
                "error_y": {
                    "type": "data",
                    "symmetric": False,
                    "array": [j[0] for j in jga],
                    "arrayminus": [j[1] for j in jga],
                    "thickness": 1,
                },
                "marker": {
                    "color": CONDITION_COLOURS[n % len(CONDITION_COLOURS)],
                    "symbol": ["diamond" if r.is_baseline else "circle" for r in rows],
                    "size": 9,
                },
                "customdata": [[_label(r), text(r.method_name)] for r in rows],
                "hovertemplate": (
                    "<b>%{customdata[0]}</b><br>%{customdata[1]}<br>"
                    + text(condition.label)
                    + f"<br>{y_name} %{{y:.2f}}, {x_name} %{{x:.2f}}<extra></extra>"
                ),
            }
        )
    return {
        "data": traces,
        "layout": _layout(
            f"{y_name} against {x_name} per condition (diamonds: baselines)",
            height=420,
            showlegend=True,
            xaxis={"title": {"text": f"{x_name} (%) — {second.better}"}},
            yaxis={"title": {"text": f"{y_name} (%) — {first.better}"}},
            margin={"l": 60, "r": 20, "t": 40, "b": 50},
        ),
    }


def chart_id(kind: str, key: str = "") -> str:
    return f"chart-{kind}-{key}" if key else f"chart-{kind}"


def figures(board: Leaderboard) -> dict[str, Any]:
    """Every figure of the leaderboard page, keyed by the id of its container."""
    charts: dict[str, Any] = {}
    shown = board.columns
    for condition in board.conditions:
        if condition.rows:
            for index, column in enumerate(shown[:2]):
                charts[chart_id(slugify(column.name), condition.key)] = bar_chart(
                    condition, column, index
                )
    if any(r.gap is not None for r in board.overview):
        charts[chart_id("robustness")] = robustness_chart(board)
    if len(shown) > 1 and any(c.rows for c in board.conditions):
        charts[chart_id("scatter")] = scatter_chart(board)
    return charts
