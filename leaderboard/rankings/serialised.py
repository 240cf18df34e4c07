"""The one serialised form of a board: JSON-ready data with no references to Results, as a
published snapshot stores it (``rankings.snapshots``) and as the stored boards keep it (with
their charts, ``rankings.builds``), and the board read back from it.

``FORMAT`` 2 added each row's rank interval (``rank_low``, ``rank_high``), a condition's
detectable difference (``detectable``, ``detectable_note``), a final board's shake-up
(``shakeups``, ``shakeup_note``) and the Ladder flag (``ladder``), and counts only scored
submissions in a row's ``submissions``. Data of format 1 (snapshots published before) reads
back without any of these (no intervals, no detectable difference, no shake-up) and with no
submission count: its count included every submission that was not refused or cancelled, which
is not the number the pages now show."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from leaderboard.rankings.board import (
    Column,
    ConditionBoard,
    Leaderboard,
    Move,
    OverviewRow,
    Row,
    Shakeup,
)
from leaderboard.rankings.charts import figures

FORMAT = 2

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
                "detectable": c.detectable,
                "detectable_note": c.detectable_note,
            }
            for c in board.conditions
        ],
        "overview": [row(r) for r in board.overview],
        "reported": list(board.reported),
        "shakeups": [dataclasses.asdict(found) for found in board.shakeups],
        "shakeup_note": board.shakeup_note,
        "ladder": board.ladder,
        **({"charts": board.charts} if charts else {}),
    }


def from_data(data: dict[str, Any]) -> Leaderboard:
    """A board (with charts: the stored ones, else drawn from the rows) from its serialised
    form."""

    def when(text: str) -> dt.datetime:
        return dt.datetime.fromisoformat(text)

    version = int(data.get("format") or 1)

    def upgraded(row: dict[str, Any]) -> dict[str, Any]:
        return _upgraded(row, version)

    conditions = tuple(
        ConditionBoard(
            c["condition_id"],
            c["key"],
            c["label"],
            tuple(
                Row(
                    **{
                        **upgraded(r),
                        "submitted_at": when(r["submitted_at"]),
                        "cells": tuple(tuple(x) for x in r["cells"]),
                    }
                )
                for r in c["rows"]
            ),
            c["note"],
            detectable=c.get("detectable"),
            detectable_note=c.get("detectable_note") or "",
        )
        for c in data["conditions"]
    )
    overview = tuple(
        OverviewRow(
            **{
                **upgraded(r),
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
        shakeups=tuple(
            Shakeup(**{**found, "moves": tuple(Move(**m) for m in found["moves"])})
            for found in data.get("shakeups") or ()
        ),
        shakeup_note=data.get("shakeup_note") or "",
        ladder=bool(data.get("ladder")),
    )
    return dataclasses.replace(board, charts=data.get("charts") or figures(board))


def _upgraded(row: dict[str, Any], version: int) -> dict[str, Any]:
    """A stored row in today's shape: snapshots published before the method's link and
    description were kept have none, and kept the change as a drop (first minus last); those
    of format 1 counted other submissions than the scored ones (``FORMAT``)."""
    row = {"method_url": "", "method_description": "", **row}
    if "gap" in row:
        gap = row.pop("gap")
        row["change"] = None if gap is None else -gap
    if version < 2:
        row["submissions"] = None
    return row
