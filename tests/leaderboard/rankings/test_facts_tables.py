"""The declared system facts in the paper tables and the chart of the primary metric against a
number, on a tiny board written here (no database): one condition, JGA only, three systems.

========  =======  =============  ==========  ========  =========================
system    rank     ASR system     parameters  LM name   JGA [interval]
========  =======  =============  ==========  ========  =========================
Alpha A   1        Whisper        1.5         (none)    60.00 [55.00, 62.50]
Beta B    2        provided ASR   (none)      R&D_v2    40.00 [35.25, 44.75]
Gamma C   3        Whisper        7           (none)    30.50 [21.00, 41.00]
========  =======  =============  ==========  ========  =========================

Worked by hand: the chart of JGA against parameters has Alpha (x 1.5, y 60.0, error bar up
62.5 - 60.0 = 2.5, down 60.0 - 55.0 = 5.0) and Gamma (x 7, y 30.5, up 41.0 - 30.5 = 10.5,
down 30.5 - 21.0 = 9.5); Beta declared no size, so has no marker. A table's fact cells are
the values as given, "R&D_v2" written ``R\\&D\\_v2`` in LaTeX and ``R&amp;D\\_v2`` in Markdown.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

from leaderboard.analyses.papers import render
from leaderboard.rankings.board import Column, ConditionBoard, Leaderboard, OverviewRow, Row
from leaderboard.rankings.charts import fact_chart
from leaderboard.rankings.facts import fact_points
from leaderboard.rankings.serialised import expanded, from_data, serialise

DECLARED = (
    {"key": "asr", "label": "ASR system", "kind": "choice", "required": False,
     "choices": ["Whisper", "provided ASR"], "unit": "", "help": ""},
    {"key": "params", "label": "Parameters", "kind": "number", "required": False,
     "choices": [], "unit": "billion", "help": ""},
    {"key": "lm", "label": "LM name", "kind": "text", "required": False, "choices": [],
     "unit": "", "help": ""},
)  # fmt: skip
SYSTEMS = (
    # team, method, group, (JGA, low, high), facts
    ("Alpha", "A", "1", (60.0, 55.0, 62.5), {"asr": "Whisper", "params": 1.5}),
    ("Beta", "B", "2", (40.0, 35.25, 44.75), {"asr": "provided ASR", "lm": "R&D_v2"}),
    ("Gamma", "C", "3", (30.5, 21.0, 41.0), {"asr": "Whisper", "params": 7}),
)
WHEN = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def _board(facts: tuple = DECLARED) -> Leaderboard:
    rows, overview = [], []
    for rank, (team, method, group, cell, given) in enumerate(SYSTEMS, start=1):
        entry = {
            "rank": rank, "team_id": rank, "team_name": team, "team_slug": team.lower(),
            "submission_id": rank, "method_name": method, "method_url": "",
            "method_description": "", "is_baseline": False, "submitted_at": WHEN,
            "facts": given if facts else {},
        }  # fmt: skip
        rows.append(Row(**entry, signature="sig", submissions=1, group=group, cells=(cell,)))
        figures = {"per_condition": {"tts": (cell[0],)}, "means": (cell[0],),
                   "cells": {"tts": (cell,)}, "groups": {"tts": group}}  # fmt: skip
        overview.append(OverviewRow(**entry, **figures, submissions=1))
    return Leaderboard(
        phase_id=1,
        primary_metric="jga",
        conditions=(ConditionBoard(1, "tts", "TTS-Verbatim", tuple(rows)),),
        part="all",
        overview=tuple(overview),
        columns=(Column("jga", "JGA", "higher", primary=True),),
        task="dstc11",
        facts=facts,
    )


def test_the_fact_chart_is_the_primary_metric_against_the_declared_number():
    board = _board()
    (found,) = fact_points(board)  # one numeric fact, one condition
    assert (found["fact"], found["condition"], found["metric"]) == ("params", "tts", "jga")
    assert [(p["team"], p["x"], p["y"], p["low"], p["high"]) for p in found["points"]] == [
        ("Alpha", 1.5, 60.0, 55.0, 62.5),
        ("Gamma", 7, 30.5, 21.0, 41.0),
    ]
    (trace,) = fact_chart(board, found)["data"]
    assert trace["x"] == [1.5, 7] and trace["y"] == [60.0, 30.5]
    assert trace["error_y"]["array"] == [2.5, 10.5]
    assert trace["error_y"]["arrayminus"] == [5.0, 9.5]
    assert fact_chart(board, found)["layout"]["xaxis"]["title"]["text"] == "Parameters (billion)"


def test_the_markdown_table_has_a_column_per_declared_fact():
    lines = render(_board(), "markdown").splitlines()
    assert lines[:5] == [
        "| Team | ASR system | Parameters (billion) | LM name | TTS-Verbatim: JGA ↑ |",
        "| --- | --- | --- | --- | ---: |",
        "| Alpha (A) | Whisper | 1.5 | — | **60.00**<sup>1</sup> [55.00, 62.50] |",
        "| Beta (B) | provided ASR | — | R&amp;D\\_v2 | 40.00<sup>2</sup> [35.25, 44.75] |",
        "| Gamma (C) | Whisper | 7 | — | 30.50<sup>3</sup> [21.00, 41.00] |",
    ]


def test_the_latex_table_has_a_column_per_declared_fact_escaped():
    lines = render(_board(), "latex").splitlines()
    assert lines[4:12] == [
        "\\begin{tabular}{llllr}",
        "\\toprule",
        " &  &  &  & \\multicolumn{1}{c}{TTS-Verbatim} \\\\",
        "\\cmidrule(lr){5-5}",
        "Team & ASR system & Parameters (billion) & LM name & JGA $\\uparrow$ \\\\",
        "\\midrule",
        "Alpha (A) & Whisper & 1.5 & -- & \\textbf{60.00}\\textsuperscript{1} "
        "{\\scriptsize [55.00, 62.50]} \\\\",
        "Beta (B) & provided ASR & -- & R\\&D\\_v2 & 40.00\\textsuperscript{2} "
        "{\\scriptsize [35.25, 44.75]} \\\\",
    ]


def test_a_board_without_declared_facts_has_the_tables_it_always_had():
    board = _board(facts=())
    assert render(board, "markdown").splitlines()[:3] == [
        "| Team | TTS-Verbatim: JGA ↑ |",
        "| --- | ---: |",
        "| Alpha (A) | **60.00**<sup>1</sup> [55.00, 62.50] |",
    ]
    assert render(board, "latex").splitlines()[4:10] == [
        "\\begin{tabular}{lr}",
        "\\toprule",
        " & \\multicolumn{1}{c}{TTS-Verbatim} \\\\",
        "\\cmidrule(lr){2-2}",
        "Team & JGA $\\uparrow$ \\\\",
        "\\midrule",
    ]


def test_a_board_stored_in_format_3_reads_back_with_no_facts():
    """Format 3 was today's form without the declarations and each entry's values."""
    data = json.loads(json.dumps(serialise(_board(facts=())), default=str))
    data["format"] = 3
    del data["facts"]
    for entry in data["entries"].values():
        del entry["facts"]
    board = from_data(data)
    assert board.facts == ()
    rows = [*board.conditions[0].rows, *board.overview]
    assert [r.team_name for r in rows] == ["Alpha", "Beta", "Gamma"] * 2
    assert all(r.facts == {} for r in rows)
    assert fact_points(board) == []
    shown = expanded(data)
    assert [r["facts"] for r in shown["overview"]] == [{}, {}, {}]
    assert [r["facts"] for r in shown["conditions"][0]["rows"]] == [{}, {}, {}]
    assert dataclasses.replace(board, charts={}) == _board(facts=())
