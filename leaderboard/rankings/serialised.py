"""The one serialised form of a board: JSON-ready data with no references to Results, as a
published snapshot stores it (``rankings.snapshots``) and as the stored boards keep it (with
their charts, ``rankings.builds``), and the board read back from it.

``FORMAT`` 2 added each row's rank interval (``rank_low``, ``rank_high``), a condition's
detectable difference (``detectable``, ``detectable_note``), a final board's shake-up
(``shakeups``, ``shakeup_note``) and the Ladder flag (``ladder``), and counts only scored
submissions in a row's ``submissions``. Data of format 1 (snapshots published before) reads
back without any of these (no intervals, no detectable difference, no shake-up) and with no
submission count: its count included every submission that was not refused or cancelled, which
is not the number the pages now show.

``FORMAT`` 3 lists each entry's facts once (``entries``: the team's id, name and slug, the
method's name, address and description, whether it is a baseline and when it was submitted,
keyed by the submission's id as a string) and its rows refer to them by ``submission_id``:
a row keeps only what is its own (rank, signature, scored submissions, group, cells, rank
interval; on the overview its figures per condition), where every table of the board repeated
them before. ``expanded`` gives the rows with their facts again, as the readers' exports show
them.

``FORMAT`` 4 adds the challenge's declared system facts (``facts``: their declarations) and
each entry's values of them (an entry's ``facts``). Data of an older format reads back with
none declared and no values.

The form holds no NaN and no infinity (JSON has neither; ``rankings.models.Board.pack``'s
encoder would write them as null): an undefined number is None. The figures of the rows come
from the Results' stored metrics and intervals, which hold None for an undefined value
(``submissions.metrics`` writes the scorer's NaN so; Postgres's ``jsonb`` holds no NaN), or
are sums and differences of them (means, change, the charts); a rank interval is whole
numbers. The statistics of the resamples are written here, each a number or None
(``_number``): the detectable difference and the shake-ups' figures."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from typing import Any

from leaderboard.rankings.board import (
    Column,
    ConditionBoard,
    Entry,
    Leaderboard,
    Move,
    OverviewRow,
    Row,
    Shakeup,
)
from leaderboard.rankings.charts import figures

FORMAT = 4

#: an entry's facts, the same in every table of a board (``entries``, by submission id)
FACTS = tuple(f.name for f in dataclasses.fields(Entry) if f.name not in ("rank", "submission_id"))
#: the figures of a shake-up, each a number or None
_SHAKEUP_FIGURES = tuple(
    f.name for f in dataclasses.fields(Shakeup) if f.name not in ("key", "label", "moves")
)


def serialise(board: Leaderboard, *, charts: bool = False) -> dict[str, Any]:
    """The board as JSON-ready data (dicts, lists, strings, numbers, booleans and None only);
    with ``charts``, its figures too (a stored board keeps them; a snapshot does not, and
    ``from_data`` draws them again from the rows)."""
    entries: dict[str, dict[str, Any]] = {}

    def facts(value: Row | OverviewRow) -> None:
        key = str(value.submission_id)
        if key not in entries:
            found = {name: getattr(value, name) for name in FACTS}
            found["submitted_at"] = value.submitted_at.isoformat()
            entries[key] = found

    def row(value: Row) -> dict[str, Any]:
        facts(value)
        return {
            "rank": value.rank,
            "submission_id": value.submission_id,
            "signature": value.signature,
            "submissions": value.submissions,
            "group": value.group,
            "cells": [list(c) for c in value.cells],
            "rank_low": value.rank_low,
            "rank_high": value.rank_high,
        }

    def overview_row(value: OverviewRow) -> dict[str, Any]:
        facts(value)
        return {
            "rank": value.rank,
            "submission_id": value.submission_id,
            "per_condition": {k: list(v) for k, v in value.per_condition.items()},
            "submissions": value.submissions,
            "change": value.change,
            "means": list(value.means),
            "cells": {k: [list(c) for c in v] for k, v in value.cells.items()},
            "groups": dict(value.groups),
            "rank_low": value.rank_low,
            "rank_high": value.rank_high,
        }

    def shakeup(found: Shakeup) -> dict[str, Any]:
        return {
            "key": found.key,
            "label": found.label,
            "moves": [
                {
                    "submission_id": m.submission_id,
                    "public_rank": m.public_rank,
                    "private_rank": m.private_rank,
                    "public": _number(m.public),
                    "private": _number(m.private),
                }
                for m in found.moves
            ],
            **{name: _number(getattr(found, name)) for name in _SHAKEUP_FIGURES},
        }

    conditions = [
        {
            "condition_id": c.condition_id,
            "key": c.key,
            "label": c.label,
            "rows": [row(r) for r in c.rows],
            "note": c.note,
            "detectable": _number(c.detectable),
            "detectable_note": c.detectable_note,
        }
        for c in board.conditions
    ]
    overview = [overview_row(r) for r in board.overview]
    return {
        "format": FORMAT,
        "phase_id": board.phase_id,
        "part": board.part,
        "primary_metric": board.primary_metric,
        "task": board.task,
        "columns": [dataclasses.asdict(c) for c in board.columns],
        "entries": entries,
        "conditions": conditions,
        "overview": overview,
        "reported": list(board.reported),
        "withdrawn": list(board.withdrawn),
        "shakeups": [shakeup(found) for found in board.shakeups],
        "shakeup_note": board.shakeup_note,
        "ladder": board.ladder,
        "facts": [dict(f) for f in board.facts],
        **({"charts": board.charts} if charts else {}),
    }


def _number(value: float | None) -> float | None:
    """A statistic as the form holds it: a number, or None when it is undefined (NaN) or not
    finite (JSON has neither)."""
    return None if value is None or not math.isfinite(value) else float(value)


def expanded(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (of any format) with each row holding its entry's facts and no ``entries``:
    the rows as the readers' exports show them (and as formats 1 and 2 stored them)."""
    entries = data.get("entries")
    if entries is None:
        return data
    # each entry's fields in the order of ``Entry``; the rank is the row's own
    order = [f.name for f in dataclasses.fields(Entry)]
    shown = {
        key: {n: int(key) if n == "submission_id" else found.get(n) for n in order}
        for key, found in entries.items()
    }
    for found in shown.values():
        found["facts"] = found["facts"] or {}  # none before format 4

    def with_facts(row: dict[str, Any]) -> dict[str, Any]:
        return {**shown[str(row["submission_id"])], **row}

    out = {k: v for k, v in data.items() if k != "entries"}
    out["conditions"] = [
        {**c, "rows": [with_facts(r) for r in c["rows"]]} for c in data["conditions"]
    ]
    out["overview"] = [with_facts(r) for r in data["overview"]]
    return out


def from_data(data: dict[str, Any]) -> Leaderboard:
    """A board (with charts: the stored ones, else drawn from the rows) from its serialised
    form, of any format."""

    def when(text: str) -> dt.datetime:
        return dt.datetime.fromisoformat(text)

    version = int(data.get("format") or 1)
    entries = data.get("entries")
    if entries is not None:  # format 3: each row's facts from its entry, read once
        facts = {
            int(key): {
                "facts": {},  # none before format 4
                **found,
                "submission_id": int(key),
                "submitted_at": when(found["submitted_at"]),
            }
            for key, found in entries.items()
        }

        def upgraded(row: dict[str, Any]) -> dict[str, Any]:
            return {**facts[row["submission_id"]], **row}

    else:

        def upgraded(row: dict[str, Any]) -> dict[str, Any]:
            found = _upgraded(row, version)
            found["submitted_at"] = when(row["submitted_at"])
            return found

    conditions = tuple(
        ConditionBoard(
            c["condition_id"],
            c["key"],
            c["label"],
            tuple(
                Row(**{**upgraded(r), "cells": tuple(tuple(x) for x in r["cells"])})
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
        withdrawn=tuple(data.get("withdrawn") or ()),
        shakeups=tuple(
            Shakeup(**{**found, "moves": tuple(Move(**m) for m in found["moves"])})
            for found in data.get("shakeups") or ()
        ),
        shakeup_note=data.get("shakeup_note") or "",
        ladder=bool(data.get("ladder")),
        facts=tuple(data.get("facts") or ()),
    )
    return dataclasses.replace(board, charts=data.get("charts") or figures(board))


def _upgraded(row: dict[str, Any], version: int) -> dict[str, Any]:
    """A stored row in today's shape: snapshots published before the method's link and
    description were kept have none, and kept the change as a drop (first minus last); those
    of format 1 counted other submissions than the scored ones (``FORMAT``)."""
    row = {"method_url": "", "method_description": "", "facts": {}, **row}
    if "gap" in row:
        gap = row.pop("gap")
        row["change"] = None if gap is None else -gap
    if version < 2:
        row["submissions"] = None
    return row
