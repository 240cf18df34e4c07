"""A team's own history in a phase: every scored run's primary metric, with its interval, in
the order the runs were submitted, per condition, and the best value so far.

One function (``series``) says what the history holds, for the "my submissions" page and the
API alike, and it reads the numbers through the same rule as that page's table
(``selectors.score_prefix``): where the team may see only the public part of the split, the
history is on that part; where it may see no number, the history is empty.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.models import User

from leaderboard.challenges.models import Phase
from leaderboard.challenges.visibility import access
from leaderboard.plotting import FONT, text, wrap_words
from leaderboard.rankings.board import cell
from leaderboard.rankings.charts import error_bars, team_colour
from leaderboard.submissions import selectors
from leaderboard.submissions.models import Submission

#: Decimals of the numbers handed to the page and the API (the tables show two).
DECIMALS = 3


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, DECIMALS)


def better(direction: str, value: float, than: float | None) -> bool:
    """Whether ``value`` beats ``than`` (None: nothing yet) in the metric's ``direction``; a
    tie does not: the run that first reached a value set it."""
    if than is None:
        return True
    return value > than if direction == "higher" else value < than


def series(user: User, phase: Phase) -> dict[str, Any]:
    """The history of ``user``'s teams in ``phase``: the primary metric (name, label,
    direction), the part of the split the numbers are on (``all``, ``public``, or None when
    the team may see none, and then no condition), and per condition (the phase's order) its
    runs oldest first, each with its team, value, interval, the team's best so far at that
    run and whether the run set it (``record``). A run the condition has no value for (the
    scorer left it undefined) is listed with None and changes no best."""
    challenge = phase.challenge
    metric = challenge.scoring_task().metric(challenge.primary)
    prefix = selectors.score_prefix(phase, access(phase, user))
    found: dict[str, Any] = {
        "metric": {"name": metric.name, "label": metric.label, "direction": metric.direction},
        "part": None if prefix is None else (selectors.shown_part(prefix) or "all"),
        "conditions": [],
    }
    if prefix is None:
        return found
    part = selectors.shown_part(prefix)
    runs = (
        selectors.team_submissions(user, phase)
        .filter(status=Submission.Status.SCORED)
        .order_by("created_at", "pk")
    )
    by_condition: dict[str, dict[str, Any]] = {
        c.key: {"key": c.key, "label": c.label, "runs": []}
        for c in phase.conditions.order_by("order", "key")
    }
    best: dict[tuple[str, int], float | None] = {}
    for run in runs:
        for result in run.active_results:
            rows = by_condition.get(result.condition.key)
            if rows is None:
                continue
            value, low, high = cell(result, metric.name, part)
            so_far = best.get((result.condition.key, run.team_id))
            record = value is not None and better(metric.direction, value, so_far)
            if record:
                so_far = best[(result.condition.key, run.team_id)] = value
            rows["runs"].append(
                {
                    "submission": run.pk,
                    "team": {"id": run.team_id, "slug": run.team.slug, "name": run.team.name},
                    "method_name": run.method_name,
                    "submitted_at": run.created_at,
                    "value": _round(value),
                    "low": _round(low),
                    "high": _round(high),
                    "best": _round(so_far),
                    "record": record,
                }
            )
    found["conditions"] = [c for c in by_condition.values() if c["runs"]]
    return found


def _utc(moment: dt.datetime) -> str:
    """A time as the chart's date axis reads it (it knows no time zones): UTC, to the second."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def figures(history: dict[str, Any]) -> dict[str, Any]:
    """One Plotly figure per condition of ``history`` (``series``), ``chart-history-KEY``:
    every run as a marker with its interval, the best so far as a step line, and the runs
    that set it as stars, each team in its colour (a member of two teams sees both). The
    heading above each chart is its title, as on the boards."""
    metric = history["metric"]
    name = text(metric["label"])
    out: dict[str, Any] = {}
    for condition in history["conditions"]:
        teams: dict[int, list[dict[str, Any]]] = {}
        for run in condition["runs"]:
            teams.setdefault(run["team"]["id"], []).append(run)
        several = len(teams) > 1
        traces: list[dict[str, Any]] = []
        for team_id, runs in teams.items():
            colour = team_colour(team_id)
            team = text(runs[0]["team"]["name"])
            prefix = f"{team}: " if several else ""
            shown = [r for r in runs if r["value"] is not None]
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": wrap_words(f"{prefix}run", 30),
                    "x": [_utc(r["submitted_at"]) for r in shown],
                    "y": [r["value"] for r in shown],
                    "error_y": error_bars(
                        [(r["value"], r["low"], r["high"]) for r in shown], colour, 1
                    ),
                    "marker": {"color": colour, "size": 8, "opacity": 0.8},
                    "customdata": [[r["submission"], text(r["method_name"])] for r in shown],
                    "hovertemplate": (
                        f"#%{{customdata[0]}} %{{customdata[1]}}<br>{name} %{{y:.2f}}"
                        "<extra></extra>"
                    ),
                }
            )
            stepped = [r for r in runs if r["best"] is not None]
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": wrap_words(f"{prefix}best so far", 30),
                    "x": [_utc(r["submitted_at"]) for r in stepped],
                    "y": [r["best"] for r in stepped],
                    "line": {"shape": "hv", "color": colour, "width": 2},
                    "hoverinfo": "skip",
                }
            )
            records = [r for r in shown if r["record"]]
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": wrap_words(f"{prefix}new best", 30),
                    "x": [_utc(r["submitted_at"]) for r in records],
                    "y": [r["value"] for r in records],
                    "marker": {
                        "symbol": "star",
                        "size": 14,
                        "color": colour,
                        "line": {"width": 1, "color": "#1b1f24"},
                    },
                    "customdata": [[r["submission"], text(r["method_name"])] for r in records],
                    "hovertemplate": (
                        f"new best: #%{{customdata[0]}} %{{customdata[1]}}<br>{name} "
                        "%{y:.2f}<extra></extra>"
                    ),
                }
            )
        out[f"chart-history-{condition['key']}"] = {
            "data": traces,
            "layout": {
                "font": FONT,
                "paper_bgcolor": "#fff",
                "plot_bgcolor": "#fff",
                "height": 340 + (40 if several else 0),
                "showlegend": True,
                "legend": {
                    "font": {"size": 12},
                    "orientation": "h",
                    "x": 0,
                    "xanchor": "left",
                    "y": -0.25,
                    "yanchor": "top",
                },
                # three ticks: dates with times fit side by side at a phone's width
                "xaxis": {"type": "date", "nticks": 3, "automargin": True},
                "yaxis": {
                    "title": {"text": f"{name} (%), {metric['direction']} is better"},
                    "automargin": True,
                    "nticks": 6,
                },
                "margin": {"l": 10, "r": 10, "t": 20, "b": 10},
            },
        }
    return out
