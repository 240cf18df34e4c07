"""Plotly figures of a leaderboard, built once from the cached board (no queries).

Figures are plain dicts (``{"data": [...], "layout": {...}}``) handed to the page with
``json_script``; ``plotly.graph_objects`` would validate the same dicts at many times the cost
for a 500-team board, and the page only needs JSON. Every user-controlled string goes through
``leaderboard.plotting.text``. Titles are the page's headings, not Plotly's (a heading wraps
on a phone; a Plotly title is cut), and a team has one colour in every chart (``team_colour``).
"""

from __future__ import annotations

import zlib
from typing import Any

from django.utils.text import slugify

from leaderboard.numbers import signed
from leaderboard.plotting import FONT, baseline_method, text, wrap, wrap_words
from leaderboard.rankings.board import (
    Column,
    ConditionBoard,
    Leaderboard,
    OverviewRow,
    Row,
    Shakeup,
)
from leaderboard.rankings.facts import declared_facts, fact_points

#: Bar charts and the robustness chart show the first teams only; the tables list everyone.
CHART_LIMIT = 50
#: The scatter draws the first teams of the overview only (one legend entry each).
SCATTER_LIMIT = 20
#: Decimals of the numbers handed to the page: the charts show two.
DECIMALS = 3
#: One marker per condition in the scatter, in condition order (a team is its colour).
CONDITION_SYMBOLS = ("circle", "square", "triangle-up", "diamond", "cross", "x")
#: Golden angle: hues of teams created one after another are far apart on the colour wheel.
GOLDEN_ANGLE = 137.508


def team_colour(team: int | str) -> str:
    """The colour of a team in every chart of every board, whatever its rank: a hue from the
    team's id (or, for an anonymous team, whose id no reader gets, from its label), dark
    enough to stand 3:1 against the white background."""
    key = team if isinstance(team, int) else zlib.crc32(team.encode())
    return f"hsl({(key * GOLDEN_ANGLE) % 360:.0f}, 70%, 35%)"


def _team(row: Row | OverviewRow) -> int | str:
    """Who a row's colour stands for: the team's id, or its label when anonymous."""
    return row.team_id if row.team_id is not None else row.team_name


def _entrant(row: Row | OverviewRow) -> tuple[int | str, str]:
    """One scatter trace per board entrant: a team, or each of its baseline methods."""
    return _team(row), row.method_name if row.is_baseline else ""


def _interval(value: float | None, low: float | None, high: float | None) -> tuple[Any, Any]:
    if value is None or low is None or high is None:
        return None, None
    return high - value, value - low


def error_bars(
    cells: list[tuple[float | None, float | None, float | None]], colour: str, thickness: float
) -> dict[str, Any]:
    """Plotly's asymmetric error bars of ``(value, low, high)`` cells: none where a bound is
    unknown."""
    plus, minus = zip(*(_interval(*c) for c in cells), strict=True) if cells else ((), ())
    return {
        "type": "data",
        "symmetric": False,
        "array": list(plus),
        "arrayminus": list(minus),
        "color": colour,
        "thickness": thickness,
    }


def _layout(**extra: Any) -> dict[str, Any]:
    return {
        "font": FONT,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 40},
        "paper_bgcolor": "#fff",
        "plot_bgcolor": "#fff",
        "showlegend": False,
        **extra,
    }


def _legend(title: str) -> dict[str, Any]:
    """A legend under the plot whose entries wrap onto as many lines as the width needs."""
    return {
        "title": {"text": title, "side": "top"},
        "font": {"size": 12},
        "orientation": "h",
        "x": 0,
        "xanchor": "left",
        "y": -0.18,
        "yanchor": "top",
    }


def _label(row: Row | OverviewRow) -> str:
    # a team may have several baselines: each is named by its method
    if row.is_baseline:
        return f"{text(row.team_name)}: {text(baseline_method(row.method_name))}"
    return text(row.team_name)


def _tick(row: Row) -> str:
    """A bar's label on lines of at most 20 characters (a long team name, a baseline's "team:
    method (baseline)"), so the bars keep enough of a phone's width for the axis and its
    title."""
    return wrap_words(_label(row), 20)


def _entry(name: str) -> str:
    """A legend entry on lines of at most 30 characters: Plotly does not wrap one, and a long
    one would run past a phone's chart."""
    return wrap_words(name, 30)


def _cell(row: Row, index: int) -> tuple[Any, Any, Any]:
    cells = row.cells
    return tuple(cells[index]) if index < len(cells) else (None, None, None)  # type: ignore[return-value]  # a cell is (value, low, high)


def bar_chart(board: ConditionBoard, column: Column, index: int) -> dict[str, Any]:
    """Horizontal bars of one metric (the board's column ``index``) per team, rank 1 on top,
    95% interval as error bars, each team in its colour; baselines hatched (not colour alone)
    and labelled."""
    rows = [r for r in board.rows if _cell(r, index)[0] is not None][:CHART_LIMIT]
    name = text(column.label)
    trace = {
        "type": "bar",
        "orientation": "h",
        "x": [_cell(r, index)[0] for r in rows],
        "y": [_tick(r) for r in rows],
        "error_x": error_bars([_cell(r, index) for r in rows], "#1b1f24", 1.2),
        "marker": {
            "color": [team_colour(_team(r)) for r in rows],
            "pattern": {
                "shape": ["/" if r.is_baseline else "" for r in rows],
                "fgcolor": "#fff",
            },
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
    return {
        "data": [trace],
        "layout": _layout(
            # each bar as tall as its label's lines need, so no two labels overlap
            height=max(160, sum(max(28, 16 * _tick(r).count("<br>") + 24) for r in rows) + 90),
            xaxis={
                # on two lines: centred under a plot a phone leaves narrow, it still fits
                "title": {"text": f"{name} (%),<br>{column.better}"},
                "automargin": True,
                "rangemode": "tozero",
                "zeroline": True,
                "nticks": 5,
            },
            yaxis={"autorange": "reversed", "automargin": True, "type": "category"},
            bargap=0.25,
        ),
    }


def shakeup_chart(board: Leaderboard, found: Shakeup) -> dict[str, Any]:
    """Each entry's rank on the public part (left) and on the private part (right), one line
    per entry in its team's colour (dotted for baselines), rank 1 on top; the legend names
    each entry with its places gained (+) or lost (-). The first ``CHART_LIMIT`` entries of
    the final ranking."""
    rows: dict[int, Row | OverviewRow] = {}
    if found.key == "overview":
        rows = {r.submission_id: r for r in board.overview}
    else:
        for c in board.conditions:
            if c.key == found.key:
                rows = {r.submission_id: r for r in c.rows}
    ends = ["Public part", "Private part (final)"]
    traces = []
    for move in found.moves[:CHART_LIMIT]:
        row = rows.get(move.submission_id)
        if row is None or move.public_rank is None:
            continue
        change = move.rank_change or 0
        moved = f"{change:+d}" if change else "\u00b10"
        colour = team_colour(_team(row))
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": _entry(f"{_label(row)}: {moved}"),
                "x": ends,
                "y": [move.public_rank, move.private_rank],
                "line": {"color": colour, "dash": "dot" if row.is_baseline else "solid"},
                "marker": {"symbol": "diamond" if row.is_baseline else "circle", "size": 9},
                "customdata": [[text(row.method_name), p] for p in (move.public, move.private)],
                "hovertemplate": (
                    f"<b>{_label(row)}</b><br>%{{customdata[0]}}<br>%{{x}}: rank %{{y}}, "
                    "%{customdata[1]:.2f}<br>"
                    f"places gained: {moved}<extra></extra>"
                ),
            }
        )
    ranks = max((max(m.public_rank or 0, m.private_rank) for m in found.moves), default=1)
    return {
        "data": traces,
        "layout": _layout(
            height=300 + 22 * len(traces),
            showlegend=True,
            legend=_legend("Entry: places gained from the public part to the final ranking"),
            xaxis={"type": "category", "automargin": True},
            yaxis={
                "title": {"text": "Rank"},
                "autorange": "reversed",
                "range": [ranks + 0.5, 0.5],
                "dtick": 1 if ranks <= 20 else None,
                "automargin": True,
            },
            margin={"l": 10, "r": 10, "t": 20, "b": 10},
        ),
    }


def percent_range(values: list[float]) -> list[float] | None:
    """An axis range for percentages: the values with a little room either side, never past
    0 or 100 (Plotly's own padding runs a board near 100 to 101 %); ``None`` lets Plotly
    choose when there is nothing to draw."""
    if not values:
        return None
    low, high = min(values), max(values)
    pad = max(1.0, (high - low) * 0.08)
    return [max(0.0, low - pad), min(100.0, high + pad)]


def robustness_chart(board: Leaderboard) -> dict[str, Any]:
    """One line per team (its overview submission) across the conditions in order, in the
    team's colour; the legend names each team with its change from the first condition to the
    last (the overview's "Change" column, same sign), the most robust team first."""
    first = board.columns[0]
    name = text(first.label)
    conditions = board.conditions
    labels = [wrap(text(c.label)) for c in conditions]
    rows = [r for r in board.overview if r.change is not None][:CHART_LIMIT]
    better = -1.0 if first.direction == "higher" else 1.0
    rows.sort(key=lambda r: (better * (r.change or 0.0), r.rank))
    traces = []
    for r in rows:
        values = [(r.per_condition.get(c.key) or (None, None))[0] for c in conditions]
        change = signed(r.change)
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": _entry(f"{_label(r)}: {change}"),
                "x": labels,
                "y": values,
                "line": {
                    "color": team_colour(_team(r)),
                    "dash": "dot" if r.is_baseline else "solid",
                    "width": 2,
                },
                "marker": {"symbol": "diamond" if r.is_baseline else "circle", "size": 8},
                # a marker at the range's end (100 %) is drawn whole, not cut by the plot area
                "cliponaxis": False,
                "customdata": [text(r.method_name) for _ in conditions],
                "hovertemplate": (
                    f"<b>{_label(r)}</b><br>%{{customdata}}<br>%{{x}}: {name} %{{y:.2f}}"
                    f"<br>change first to last: {change} points<extra></extra>"
                ),
            }
        )
    return {
        "data": traces,
        "layout": _layout(
            height=300 + 22 * len(rows),
            showlegend=True,
            legend=_legend(f"Team: change in {name}, first to last condition"),
            xaxis={"type": "category", "automargin": True},
            yaxis={
                "title": {"text": f"{name} (%)"},
                "automargin": True,
                "nticks": 6,
                "range": percent_range(
                    [p[0] for r in rows for p in r.per_condition.values() if p and p[0] is not None]
                ),
            },
            margin={"l": 10, "r": 10, "t": 20, "b": 10},
        ),
    }


def scatter_chart(board: Leaderboard) -> dict[str, Any]:
    """The board's first column against its second, one trace per team in its colour (its
    name in the legend), one marker per condition (a symbol per condition) with both
    intervals; baselines drawn with open markers. The first ``SCATTER_LIMIT`` entries of the
    overview only."""
    first, second = board.columns[:2]
    y_name, x_name = text(first.label), text(second.label)
    conditions = board.conditions
    drawn = {_label(r) for r in board.overview[:SCATTER_LIMIT]}
    # one trace per team (anonymous teams have no id on the board: one trace per name)
    points: dict[tuple[int | str, str], list[tuple[int, Row]]] = {}
    for n, condition in enumerate(conditions):
        for r in condition.rows:
            if _label(r) not in drawn:
                continue
            if _cell(r, 0)[0] is not None and _cell(r, 1)[0] is not None:
                points.setdefault(_entrant(r), []).append((n, r))
    traces = []
    for (team, _method), found in points.items():
        rows = [r for _, r in found]
        jga = [_interval(*_cell(r, 0)) for r in rows]
        ser = [_interval(*_cell(r, 1)) for r in rows]
        colour = team_colour(team)
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": _entry(_label(rows[0])),
                "x": [_cell(r, 1)[0] for r in rows],
                "y": [_cell(r, 0)[0] for r in rows],
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": [s[0] for s in ser],
                    "arrayminus": [s[1] for s in ser],
                    "thickness": 1,
                    "color": colour,
                },
                "error_y": {
                    "type": "data",
                    "symmetric": False,
                    "array": [j[0] for j in jga],
                    "arrayminus": [j[1] for j in jga],
                    "thickness": 1,
                    "color": colour,
                },
                "marker": {
                    "color": colour,
                    "symbol": [
                        CONDITION_SYMBOLS[n % len(CONDITION_SYMBOLS)]
                        + ("-open" if r.is_baseline else "")
                        for n, r in found
                    ],
                    "size": 10,
                    "opacity": 0.85,
                    "line": {"width": 1, "color": colour},
                },
                "customdata": [[text(r.method_name), text(conditions[n].label)] for n, r in found],
                "hovertemplate": (
                    f"<b>{_label(rows[0])}</b><br>%{{customdata[0]}}<br>%{{customdata[1]}}"
                    f"<br>{y_name} %{{y:.2f}}, {x_name} %{{x:.2f}}<extra></extra>"
                ),
            }
        )
    return {
        "data": traces,
        "layout": _layout(
            height=340 + 22 * len(traces),
            showlegend=True,
            legend=_legend("Team"),
            xaxis={"title": {"text": f"{x_name} (%), {second.better}"}, "nticks": 6},
            yaxis={
                "title": {"text": f"{y_name} (%), {first.better}"},
                "automargin": True,
                "nticks": 6,
            },
            margin={"l": 10, "r": 10, "t": 20, "b": 10},
        ),
    }


def fact_chart(board: Leaderboard, found: dict[str, Any]) -> dict[str, Any]:
    """One condition's primary metric (y) against a numeric declared fact's value (x), one
    marker per row that declared it, in its team's colour, the metric's interval as error
    bars (``facts.fact_points``)."""
    fact = next(f for f in declared_facts(board) if f.key == found["fact"])
    column = next((c for c in board.columns if c.primary), board.columns[0])
    name, x_name = text(column.label), text(fact.heading)
    points = found["points"]
    trace = {
        "type": "scatter",
        "mode": "markers",
        "x": [p["x"] for p in points],
        "y": [p["y"] for p in points],
        "error_y": error_bars([(p["y"], p["low"], p["high"]) for p in points], "#1b1f24", 1),
        "marker": {"size": 10, "color": [team_colour(p["team_id"] or p["team"]) for p in points]},
        "customdata": [[text(p["team"]), text(p["method"]), p["rank"]] for p in points],
        "hovertemplate": (
            "<b>%{customdata[0]}</b><br>%{customdata[1]}<br>rank %{customdata[2]}<br>"
            f"{x_name} %{{x}}, {name} %{{y:.2f}}<extra></extra>"
        ),
    }
    return {
        "data": [trace],
        "layout": _layout(
            height=320,
            xaxis={"title": {"text": x_name}, "automargin": True, "nticks": 6},
            yaxis={"title": {"text": f"{name} (%), {column.better}"}, "automargin": True},
        ),
    }


def condition_symbols(board: Leaderboard) -> list[tuple[str, str]]:
    """(condition label, marker symbol name) as the scatter draws them, for its caption."""
    return [
        (c.label, CONDITION_SYMBOLS[n % len(CONDITION_SYMBOLS)].replace("-up", ""))
        for n, c in enumerate(board.conditions)
    ]


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
    if any(r.change is not None for r in board.overview):
        charts[chart_id("robustness")] = robustness_chart(board)
    if len(shown) > 1 and any(c.rows for c in board.conditions):
        charts[chart_id("scatter")] = scatter_chart(board)
    for points in fact_points(board):
        charts[chart_id(f"fact-{points['fact']}", points["condition"])] = fact_chart(board, points)
    for found in board.shakeups[:1]:  # the overview's
        if any(m.public_rank is not None for m in found.moves):
            charts[chart_id("shakeup")] = shakeup_chart(board, found)
    return _rounded(charts)


#: What ``_rounded`` leaves as it is.
_KEPT = (int, str, bool, type(None))


def _rounded(value: Any) -> Any:
    """``value`` with every float rounded to ``DECIMALS``: the page's JSON, a third the size."""
    if isinstance(value, float):
        return round(value, DECIMALS)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        # Most lists are numbers or labels, or rows of them (a chart's customdata): those are
        # rounded here, without a call for each row (a 500-team board has thousands).
        out = []
        for v in value:
            kind = type(v)
            if kind is float:
                out.append(round(v, DECIMALS))
            elif kind in _KEPT:
                out.append(v)
            elif kind is list or kind is tuple:
                out.append(
                    [
                        round(x, DECIMALS) if type(x) is float else x
                        if type(x) in _KEPT else _rounded(x)
                        for x in v
                    ]
                )  # fmt: skip
            else:
                out.append(_rounded(v))
        return out
    return value
