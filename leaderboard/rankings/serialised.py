"""The one serialised form of a board: JSON-ready data with no references to Results, as a
published snapshot stores it (``rankings.snapshots``) and as the stored boards keep it (with
their charts, ``rankings.builds``), and the board read back from it."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from leaderboard.rankings.board import Column, ConditionBoard, Leaderboard, OverviewRow, Row
from leaderboard.rankings.charts import figures

FORMAT = 1

#: the fields of each kind of row, in order
FIELDS = {kind: tuple(f.name for f in dataclasses.fields(kind)) for kind in (Row, OverviewRow)}


def serialise(board: Leaderboard, *, charts: bool = False) -> dict[str, Any]:
    """The board as JSON-ready data; with ``charts``, its figures too (a stored board keeps
    them; a snapshot does not, and ``from_data`` draws them again from the rows)."""

    def row(value: Any) -> dict[str, Any]:
        # the row's fields as they are (``dataclasses.asdict`` would deep-copy every value,
        # the larger part of the time at 500 teams): nothing here is changed afterwards
        data = {name: getattr(value, name) for name in FIELDS[type(value)]}
        data["submitted_at"] = value.submitted_at.isoformat()
        if "per_condition" in data:
            data["per_condition"] = {k: list(v) for k, v in value.per_condition.items()}
            data["cells"] = {k: [list(c) for c in v] for k, v in value.cells.items()}
        return data

    return {
        "format": FORMAT,
        "phase_id": board.phase_id,
        "part": board.part,
        "primary_metric": board.primary_metric,
        "task": board.task,
        "columns": [dataclasses.asdict(c) for c in board.columns],
        "conditions": [
            {
                "condition_id": c.condition_id,
                "key": c.key,
                "label": c.label,
                "rows": [row(r) for r in c.rows],
                "note": c.note,
            }
            for c in board.conditions
        ],
        "overview": [row(r) for r in board.overview],
        "reported": list(board.reported),
        **({"charts": board.charts} if charts else {}),
    }


def from_data(data: dict[str, Any]) -> Leaderboard:
    """A board (with charts: the stored ones, else drawn from the rows) from its serialised
    form."""

    def when(text: str) -> dt.datetime:
        return dt.datetime.fromisoformat(text)

    conditions = tuple(
        ConditionBoard(
            c["condition_id"],
            c["key"],
            c["label"],
            tuple(
                Row(
                    **{
                        **_upgraded(r),
                        "submitted_at": when(r["submitted_at"]),
                        "cells": tuple(tuple(x) for x in r["cells"]),
                    }
                )
                for r in c["rows"]
            ),
            c["note"],
        )
        for c in data["conditions"]
    )
    overview = tuple(
        OverviewRow(
            **{
                **_upgraded(r),
                "submitted_at": when(r["submitted_at"]),
                "per_condition": {k: tuple(v) for k, v in r["per_condition"].items()},
                "means": tuple(r["means"]),
                "cells": {k: tuple(tuple(c) for c in v) for k, v in (r.get("cells") or {}).items()},
            }
        )
        for r in data["overview"]
    )
    board = Leaderboard(
        phase_id=data["phase_id"],
        primary_metric=data["primary_metric"],
        conditions=conditions,
        part=data["part"],
        overview=overview,
        columns=tuple(Column(**c) for c in data["columns"]),
        task=data["task"],
        reported=tuple(data.get("reported") or ()),
    )
    return dataclasses.replace(board, charts=data.get("charts") or figures(board))


def _upgraded(row: dict[str, Any]) -> dict[str, Any]:
    """A stored row in today's shape: snapshots published before the method's link and
    description were kept have none, and kept the change as a drop (first minus last)."""
    row = {"method_url": "", "method_description": "", **row}
    if "gap" in row:
        gap = row.pop("gap")
        row["change"] = None if gap is None else -gap
    return row
