"""Reveal: publish a phase's private leaderboard as an immutable, numbered snapshot.

The snapshot stores the board's rows as JSON (no references to Results), so a later re-score,
a new reference version or a change of selections never changes what was published. Another
reveal publishes a new snapshot; the history stays listed under the phase."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from django.db import transaction
from django.db.models import Max

from leaderboard.challenges.models import Phase
from leaderboard.rankings.board import Column, ConditionBoard, Leaderboard, OverviewRow, Row
from leaderboard.rankings.charts import figures
from leaderboard.rankings.models import Snapshot
from leaderboard.rankings.services import compute

FORMAT = 1


class RevealError(ValueError):
    """The phase cannot be revealed now; the message is safe to show the organiser."""


def serialise(board: Leaderboard) -> dict[str, Any]:
    """The board as JSON-ready data (without its charts, which are rebuilt from the rows)."""

    def row(value: Any) -> dict[str, Any]:
        data = dataclasses.asdict(value)
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
    }


def load(snapshot: Snapshot) -> Leaderboard:
    """The published board, with charts, exactly as stored."""
    data = snapshot.data

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
    )
    return dataclasses.replace(board, charts=figures(board))


def _upgraded(row: dict[str, Any]) -> dict[str, Any]:
    """A stored row in today's shape: snapshots published before the method's link and
    description were kept have none, and kept the change as a drop (first minus last)."""
    row = {"method_url": "", "method_description": "", **row}
    if "gap" in row:
        gap = row.pop("gap")
        row["change"] = None if gap is None else -gap
    return row


def reveal(phase: Phase, user: Any) -> Snapshot:
    """Organiser action: freeze the private leaderboard now and publish it."""
    if not phase.challenge.is_organised_by(user):
        raise RevealError("Only an organiser of this challenge can reveal its results.")
    if phase.state in ("upcoming", "open"):
        raise RevealError(f"{phase.name} is still {phase.state}; reveal it after it closes.")
    data = serialise(compute(phase, "private"))
    with transaction.atomic():
        locked = Phase.objects.select_for_update().get(pk=phase.pk)
        number = (locked.snapshots.aggregate(n=Max("number"))["n"] or 0) + 1
        snapshot = Snapshot.objects.create(
            phase=locked, number=number, data=data, published_by=user
        )
        Phase.objects.filter(pk=phase.pk).update(revealed=True)
        Phase.changed(phase.pk)
    phase.revealed = True
    return snapshot


def latest(phase: Phase) -> Snapshot | None:
    return phase.snapshots.order_by("-number").first()
