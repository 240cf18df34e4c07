"""Reveal: publish a phase's private leaderboard as an immutable, numbered snapshot.

The snapshot stores the board's rows as JSON (no references to Results), so a later re-score,
a new reference version or a change of selections never changes what was published. Another
reveal publishes a new snapshot; the history stays listed under the phase.

Before publishing, the organiser previews the board (``preview``): the same data, loaded back
as a published snapshot is, under a fingerprint. Publishing with that fingerprint publishes
exactly what was previewed, or nothing when the board has changed since.

Team labels are frozen as the board showed them at the reveal (an anonymous team's alias, no
slug), with one exception readers always get (``shown_data``): a team that is anonymous now is
shown by its anonymous label in every snapshot too, so no page pairs its name with the same
submissions under its label."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import hashlib
import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import Max

from leaderboard.challenges.models import Phase
from leaderboard.rankings.board import Column, ConditionBoard, Leaderboard, OverviewRow, Row
from leaderboard.rankings.charts import figures
from leaderboard.rankings.models import Snapshot
from leaderboard.rankings.services import compute
from leaderboard.teams.models import Team

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


def fingerprint(data: dict[str, Any]) -> str:
    """The sha256 of a serialised board: equal fingerprints, equal published boards."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()


def preview(phase: Phase) -> tuple[Leaderboard, str]:
    """The private board as the next reveal would publish it, loaded back as a snapshot is,
    and its fingerprint (for ``reveal(expected=...)``)."""
    data = serialise(compute(phase, "private"))
    # stored as JSON: the preview goes through the same round trip as the snapshot
    data = json.loads(json.dumps(data, cls=DjangoJSONEncoder))
    return from_data(data), fingerprint(data)


def shown_data(snapshot: Snapshot) -> dict[str, Any]:
    """The stored data, with the label of each team that is anonymous now in place of a name
    the snapshot froze before it turned anonymous."""
    data = copy.deepcopy(snapshot.data)
    rows = [r for c in data["conditions"] for r in c["rows"]] + list(data["overview"])
    # by slug, which a restore onto another site keeps (ids change); a frozen label has none
    slugs = {r["team_slug"] for r in rows if r["team_slug"]}
    hidden = {t.slug: t for t in Team.objects.filter(anonymous=True, slug__in=slugs)}
    for r in rows:
        if r["team_slug"] in hidden:
            r["team_name"] = hidden[r["team_slug"]].anonymous_label
            r["team_slug"] = ""
            r["team_id"] = None
    return data


def load(snapshot: Snapshot) -> Leaderboard:
    """The published board, with charts, as stored (team labels as ``shown_data``)."""
    return from_data(shown_data(snapshot))


def from_data(data: dict[str, Any]) -> Leaderboard:
    """A board (with charts) from its serialised form."""

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


def reveal(phase: Phase, user: Any, expected: str | None = None) -> Snapshot:
    """Organiser action: freeze the private leaderboard now and publish it; with
    ``expected`` (a ``preview``'s fingerprint), only when it is still the board previewed."""
    if not phase.challenge.is_organised_by(user):
        raise RevealError("Only an organiser of this challenge can reveal its results.")
    if phase.state in ("upcoming", "open"):
        raise RevealError(f"{phase.name} is still {phase.state}; reveal it after it closes.")
    data = json.loads(json.dumps(serialise(compute(phase, "private")), cls=DjangoJSONEncoder))
    if expected is not None and fingerprint(data) != expected:
        raise RevealError(
            f"The private leaderboard of {phase.name} changed since your preview (a re-score, "
            "a final selection or a reference change): nothing was published. Check the "
            "preview again before publishing."
        )
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
