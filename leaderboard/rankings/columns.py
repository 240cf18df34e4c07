"""Which metrics a leaderboard shows, and each Result's value of them, for any task.

The columns come from the task's description (``scoring.tasks``: ``Task.describe()``): every
metric reported with an interval, in the task's order (so ``dstc11`` shows JGA and SER, its
slot F1 having no interval), plus optional metrics (seen/unseen JGA) when some Result on the
board has them. The ranked metric is the challenge's primary one, in its direction; it is
moved to the front when it is not among the first two (which the overview and charts use).

``dstc11`` values come from its typed JGA/SER columns (on the part of the split being ranked);
every other value comes from the Result's generic ``metrics``/``intervals`` (whole reference)
or ``part_metrics`` (a part of the split).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: dstc11's metrics with typed (and per-part) columns of their own
TYPED = ("jga", "ser")

Cell = tuple[float | None, float | None, float | None]


@dataclass(frozen=True)
class Column:
    name: str
    label: str
    #: "higher" or "lower" is better
    direction: str
    primary: bool = False

    @property
    def better(self) -> str:
        return f"{self.direction} is better"


def columns(challenge: Any, stored: Iterable[dict[str, Any] | None]) -> tuple[Column, ...]:
    """The metrics a board of ``challenge`` shows, given the ``metrics`` of its Results."""
    primary = challenge.primary
    present: set[str] = set()
    for metrics in stored:
        present.update(k for k, v in (metrics or {}).items() if v is not None)
    shown = [
        m
        for m in challenge.metric_specs()
        if (m["interval"] or m["name"] == primary) and (not m["optional"] or m["name"] in present)
    ]
    # The overview and the charts use the first two columns: the primary metric must be one.
    at = next((i for i, m in enumerate(shown) if m["name"] == primary), 0)
    if at >= 2:
        shown.insert(0, shown.pop(at))
    return tuple(Column(m["name"], m["label"], m["direction"], m["name"] == primary) for m in shown)


def cell(result: Any, metric: str, task: str, part: str, has_split: bool) -> Cell:
    """(value, low, high) of ``metric`` for ``result`` on ``part`` of the split."""
    p = f"{part}_" if has_split else ""
    if task == "dstc11" and metric in TYPED:
        return (
            getattr(result, f"{p}{metric}"),
            getattr(result, f"{p}{metric}_low"),
            getattr(result, f"{p}{metric}_high"),
        )
    if has_split:
        source = (result.part_metrics or {}).get(part) or {}
        values, intervals = source.get("metrics") or {}, source.get("intervals") or {}
    else:
        values, intervals = result.metrics or {}, result.intervals or {}
    low, high = (intervals.get(metric) or [None, None])[:2]
    return values.get(metric), low, high


def legacy(columns: tuple[Column, ...]) -> tuple[Column, ...]:
    """The columns of boards stored before columns were stored (dstc11 snapshots)."""
    return columns or (Column("jga", "JGA", "higher", True), Column("ser", "SER", "lower"))
