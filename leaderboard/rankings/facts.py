"""A board by the challenge's declared system facts (``challenges.facts``): the rows whose
submissions declared given values (a filter: the rows keep their ranks on the whole board, it
does not rank again), and, per condition and numeric fact, the primary metric against the
fact's value with the metric's interval (the chart's points, for the page and the API).

The filter is ``fact.KEY=VALUE`` in the page's and the API's query: a choice's value, ``yes``
or ``no`` for a flag, a text's value (any case); a number is charted, not filtered."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from leaderboard.challenges.facts import Fact
from leaderboard.rankings.board import Leaderboard, Row

#: the prefix of a filter by a declared fact in a query string
PREFIX = "fact."


def declared_facts(board: Leaderboard) -> tuple[Fact, ...]:
    """The board's declared facts (as the board was built)."""
    return stored_facts(board.facts)


def stored_facts(declarations: Iterable[Mapping[str, Any]]) -> tuple[Fact, ...]:
    """The declared facts as a board stores them (``Fact.data()`` each), as fields again: for
    a board, and for its serialised form (the readers' exports)."""
    return tuple(Fact(**{**f, "choices": tuple(f.get("choices") or ())}) for f in declarations)


def filters(board: Leaderboard, query: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(fact key -> the value asked for, fact key or parameter -> what is wrong) of the
    ``fact.KEY`` parameters of ``query`` (empty values: no filter)."""
    by_key = {f.key: f for f in declared_facts(board)}
    asked: dict[str, str] = {}
    problems: dict[str, str] = {}
    for name, value in query.items():
        if not name.startswith(PREFIX) or not str(value).strip():
            continue
        key, value = name.removeprefix(PREFIX), str(value).strip()
        fact = by_key.get(key)
        if fact is None or not fact.filterable:
            known = ", ".join(PREFIX + f.key for f in by_key.values() if f.filterable)
            problems[name[:60]] = f"no filter {name[:60]!r}; the filters are: {known or 'none'}"
        elif fact.kind == "choice" and value not in fact.choices:
            problems[name] = f"{value[:40]!r} is not one of: {', '.join(fact.choices)}"
        elif fact.kind == "flag" and value.lower() not in ("yes", "no"):
            problems[name] = f"give yes or no, not {value[:40]!r}"
        else:
            asked[key] = value
    return asked, problems


def _matches(facts: Mapping[str, Any], asked: Mapping[str, str], kinds: Mapping[str, str]) -> bool:
    for key, value in asked.items():
        found = facts.get(key)
        if kinds[key] == "flag":
            if found is None or bool(found) != (value.lower() == "yes"):
                return False
        elif found is None or str(found).casefold() != value.casefold():
            return False
    return True


def filtered(board: Leaderboard, asked: Mapping[str, str]) -> Leaderboard:
    """``board`` with only the rows whose submission declared every value ``asked`` (each row
    keeps its rank on the whole board)."""
    if not asked:
        return board
    kinds = {f.key: f.kind for f in declared_facts(board)}
    return dataclasses.replace(
        board,
        conditions=tuple(
            dataclasses.replace(c, rows=tuple(r for r in c.rows if _matches(r.facts, asked, kinds)))
            for c in board.conditions
        ),
        overview=tuple(r for r in board.overview if _matches(r.facts, asked, kinds)),
    )


def fact_points(board: Leaderboard) -> list[dict[str, Any]]:
    """For each numeric fact and each condition with rows: the primary metric (the board's
    first column) of each row that declared a value, against that value, with the metric's
    interval: ``{fact, condition, metric, points: [{submission_id, rank, team, team_id, method,
    x, y, low, high}]}``."""
    index = next((i for i, c in enumerate(board.columns) if c.primary), 0)
    found = []
    for fact in declared_facts(board):
        if fact.kind != "number":
            continue
        for condition in board.conditions:
            points = [_point(r, fact.key, index) for r in condition.rows]
            found.append(
                {
                    "fact": fact.key,
                    "condition": condition.key,
                    "metric": board.columns[index].name if board.columns else board.primary_metric,
                    "points": [p for p in points if p is not None],
                }
            )
    return found


def _point(row: Row, key: str, index: int) -> dict[str, Any] | None:
    x = row.facts.get(key)
    value, low, high = row.cells[index] if index < len(row.cells) else (None, None, None)
    if x is None or isinstance(x, bool) or value is None:
        return None
    return {
        "submission_id": row.submission_id,
        "rank": row.rank,
        "team": row.team_name,
        "team_id": row.team_id,  # None for an anonymous team
        "method": row.method_name,
        "x": x,
        "y": value,
        "low": low,
        "high": high,
    }
