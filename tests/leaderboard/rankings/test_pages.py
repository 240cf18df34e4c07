"""What the leaderboard's pages say of a board (``rankings.pages``): the captions' wording on
each branch, the rows a table lists, each row's cells in the columns' order, the shake-up's
moves joined to the rows, the links of the header. Expectations written by hand from the
boards built here."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest
from django.urls import reverse

from leaderboard.challenges.facts import Fact
from leaderboard.rankings import pages
from leaderboard.rankings.board import (
    Column,
    ConditionBoard,
    Leaderboard,
    Move,
    OverviewRow,
    Row,
    Shakeup,
)

WHEN = dt.datetime(2026, 1, 2, 3, 4, tzinfo=dt.UTC)
JGA = Column("jga", "JGA", "higher", True)
SER = Column("ser", "SER", "lower")


def _entry(submission: int, team: str, **more: object) -> dict[str, object]:
    return {
        "rank": more.pop("rank", 1),
        "team_id": submission,
        "team_name": team,
        "team_slug": team.lower(),
        "submission_id": submission,
        "method_name": f"M{submission}",
        "method_url": "",
        "method_description": "",
        "is_baseline": more.pop("is_baseline", False),
        "submitted_at": WHEN,
        "facts": more.pop("facts", {}),
        **more,
    }


def _row(submission: int, team: str, **more: object) -> Row:
    more.setdefault("signature", "")
    more.setdefault("submissions", 3)
    return Row(**_entry(submission, team, **more))  # type: ignore[arg-type]


def _condition(key: str, label: str, rows: tuple[Row, ...] = (), **more: object) -> ConditionBoard:
    return ConditionBoard(1, key, label, rows, **more)  # type: ignore[arg-type]


def _board(*conditions: ConditionBoard, **more: object) -> Leaderboard:
    more.setdefault("columns", (JGA, SER))
    return Leaderboard(1, "jga", conditions, "public", more.pop("overview", ()), **more)  # type: ignore[arg-type]


TWO = (_condition("tts", "TTS"), _condition("human", "Human"))


def test_the_overview_caption_of_the_best_submissions_in_points_lost():
    assert pages.overview_caption(_board(*TWO)) == (
        "All conditions: each team's best submission (each baseline method its own row) by the "
        "mean JGA over the 2 conditions; a submission missing a condition ranks after complete "
        "ones. Rank with its 95% interval in brackets (by the mean over resamples of the "
        "dialogues); beside the mean, the scored submissions behind the row. Per condition: JGA "
        "with its 95% interval, SER and the rank group on that condition's table (when it ranks "
        "this submission). Change: JGA on Human minus JGA on TTS (negative: points lost; closer "
        "to zero or above is more robust)."
    )


def test_the_overview_caption_of_the_ladder_with_one_column_of_errors():
    wer = Column("wer", "WER", "lower", True)
    board = _board(*TWO, _condition("noisy", "Noisy"), columns=(wer,), ladder=True)
    assert pages.overview_caption(board) == (
        "All conditions: each team's shown (Ladder) scores, by the mean over the 3 conditions, "
        "under its most recently shown submission. Rank with its 95% interval in brackets (by "
        "the mean over resamples of the dialogues); beside the mean, the scored submissions "
        "behind the row. Per condition: WER with its 95% interval and the rank group on that "
        "condition's table (when it ranks this submission). Change: WER on Noisy minus WER on "
        "TTS (negative: fewer errors; closer to zero or below is more robust)."
    )


def test_the_overview_caption_of_no_condition_has_no_change():
    caption = pages.overview_caption(_board())
    assert "over the 0 conditions;" in caption
    assert "Change" not in caption


def test_the_condition_caption_names_the_ladder_or_the_best_result():
    tts = TWO[0]
    best = pages.condition_caption(_board(*TWO), tts)
    assert best.startswith(
        "TTS: each team's best result (each baseline method its own row), ranked by JGA "
        "(higher is better); hatched bars"
    )
    assert best.endswith("Beside JGA: the scored submissions behind the row.")
    ladder = pages.condition_caption(_board(*TWO, ladder=True), tts)
    assert ladder.startswith(
        "TTS: each team's JGA as the Ladder shows it (it changes only when a new submission "
        "beats the shown one by more than the standard error of their paired difference; shown "
        "without an interval), ranked by JGA (higher is better);"
    )


@pytest.mark.parametrize(
    ("rows", "table_limit", "expected"),
    [
        (50, 20, ""),
        (51, None, "The charts show the first 50 teams; the table lists all 51."),
        (51, 60, "The charts show the first 50 teams; the table lists all 51."),
        (
            51,
            20,
            'The charts show the first 50 teams; the table lists them all with "Show all".',
        ),
    ],
)
def test_the_chart_note_says_how_the_table_lists_the_teams_the_charts_leave_out(
    rows, table_limit, expected
):
    assert pages.chart_note(rows, 50, table_limit) == expected


def test_the_detectable_difference_with_the_part_of_a_split_or_its_note():
    found = _condition("tts", "TTS", detectable=1.234)
    board = _board(found)
    assert pages.detectable(board, found, has_split=True) == (
        "Differences under 1.23 JGA points are not resolvable on this test set (public part): "
        "the smallest difference the paired test finds with 80% power (two-sided, \u03b1 = 0.05) "
        "for this number of dialogues and this board's per-dialogue variance."
    )
    assert "(public part)" not in pages.detectable(board, found, has_split=False)
    none = _condition("tts", "TTS", detectable_note="Too few dialogues.")
    assert pages.detectable(board, none, has_split=True) == "Too few dialogues."
    assert pages.detectable(board, _condition("tts", "TTS"), has_split=False) == ""


def test_the_notes_under_a_table():
    found = _condition("tts", "TTS", note="No rank groups for an F1.")
    assert pages.condition_notes(_board(found), found) == (
        "No rank groups for an F1.",
        "Rank groups, rank intervals and the detectable difference are for JGA only; the other "
        "columns are shown without tests.",
    )
    plain = _condition("tts", "TTS")
    assert pages.condition_notes(_board(plain, columns=(JGA,)), plain) == ()


def test_the_signatures_of_a_table_once_each_in_first_seen_order():
    rows = (
        _row(1, "A", signature="s2"),
        _row(2, "B", signature=""),
        _row(3, "C", signature="s1"),
        _row(4, "D", signature="s2"),
    )
    assert pages.signatures(rows) == ("s2", "s1")


def test_the_scatter_per_condition_names_each_marker_and_links_each_table():
    board = _board(*TWO)
    found = pages.scatter(board)
    assert found.title == "JGA against SER, per condition"
    assert found.caption == (
        "Each marker is a team's best result on a condition, in the team's colour (JGA higher "
        "is better, SER lower is better); bars are 95% intervals. Markers: circle TTS, square "
        "Human. Open markers: baselines. The same numbers: "
    )
    assert found.links == (
        pages.Link("", "#table-tts", "TTS"),
        pages.Link(", ", "#table-human", "Human"),
    )


def test_the_scatter_of_one_condition_links_its_table():
    found = pages.scatter(_board(TWO[0]))
    assert found.title == "JGA against SER"
    assert "Markers" not in found.caption
    assert "best result, in the team's colour" in found.caption
    assert found.links == (pages.Link("", "#table-tts", "the TTS table"),)


def test_why_the_overview_is_empty():
    ranked = _condition("tts", "TTS", (_row(1, "A"),))
    nobody, empty = pages.overview_empty(_board(ranked, TWO[1]), built=True)
    assert nobody == (
        "The overview ranks nobody: no submission has a score on every condition (Human has "
        "none). Each condition's own table below ranks what it has."
    )
    assert empty == ""
    assert pages.overview_empty(_board(*TWO), built=True) == (
        "",
        "No scored submissions yet — the first team to submit will appear here within seconds "
        "of scoring.",
    )
    # while the board is being built it says nothing it may soon contradict
    assert pages.overview_empty(_board(*TWO), built=False) == ("", "")


def test_the_fact_filters_form_and_its_note():
    facts = (
        Fact("asr", "ASR", "choice", choices=("whisper", "none")),
        Fact("ensemble", "Ensemble", "flag"),
        Fact("note", "Note", "text"),
        Fact("size", "Size", "number", unit="B"),
    )
    fields = pages.filter_fields(facts, {"ensemble": "no", "note": "t5"})
    assert [(f.key, f.value) for f in fields] == [("asr", ""), ("ensemble", "no"), ("note", "t5")]
    assert fields[0].options == (
        pages.Option("", "any", False),
        pages.Option("whisper", "whisper", False),
        pages.Option("none", "none", False),
    )
    assert fields[1].options == (
        pages.Option("", "any", False),
        pages.Option("yes", "yes", False),
        pages.Option("no", "no", True),
    )
    assert fields[2].options == ()
    assert pages.filtered_note({"asr": "whisper", "ensemble": "no"}) == (
        "asr = whisper and ensemble = no"
    )
    assert pages.filtered_note({}) == ""


def test_each_row_of_a_table_with_its_facts_and_the_scored_submissions_on_the_ranked_column():
    facts = (Fact("asr", "ASR", "choice", choices=("whisper",)), Fact("ens", "Ensemble", "flag"))
    rows = tuple(
        _row(n, f"T{n}", rank=n, cells=((60.0 - n, 59.0, 61.0), (20.0, 19.0, 21.0)), **extra)
        for n, extra in ((1, {"facts": {"asr": "whisper", "ens": False}}), (2, {}), (3, {}))
    )
    board = _board(_condition("tts", "TTS", rows))
    found = pages.tables(board, facts=facts, table_limit=2, chart_limit=50)
    assert found.overview is None  # one condition: its table is the overview
    (table,) = found.conditions
    assert [line.row.submission_id for line in table.lines] == [1, 2]
    assert table.more == pages.More(2, 3)
    first = table.lines[0]
    assert first.facts == ("whisper", "no")
    assert first.inline_facts == (("ASR", "whisper"), ("Ensemble", "no"))
    assert table.lines[1].facts == ("", "")
    assert table.lines[1].inline_facts == ()
    assert first.cells == (
        pages.Figures((59.0, 59.0, 61.0), 3),
        pages.Figures((20.0, 19.0, 21.0), None),
    )
    assert [h.title for h in table.columns] == ["", "lower is better"]
    assert [h.sub for h in table.columns] == ["[95% CI], scored submissions", "[95% CI]"]
    assert table.scatter is not None and table.scatter.title == "JGA against SER"
    assert [f.key for f in table.bars] == ["jga-tts", "ser-tts"]
    assert table.bars[1].caption == "Lower is better; hatched bars: baselines. The same numbers: "
    every = pages.tables(board, facts=facts, table_limit=None, chart_limit=50)
    assert len(every.conditions[0].lines) == 3 and every.conditions[0].more is None


def test_an_empty_condition_says_so_only_once_the_board_is_built():
    board = _board(*TWO)
    assert pages.tables(board, chart_limit=50).conditions[0].empty == "No results for TTS yet."
    assert pages.tables(board, chart_limit=50, built=False).conditions[0].empty == ""


def test_the_overview_rows_each_condition_with_its_second_column_and_group():
    row = OverviewRow(
        **_entry(7, "Seven"),  # type: ignore[arg-type]
        per_condition={"tts": (60.0, 20.0)},
        submissions=4,
        change=None,
        means=(60.0, 20.0),
        cells={"tts": ((60.0, 58.0, 62.0), (20.0, 19.0, 21.0))},
        groups={"tts": "1-2"},
    )
    board = _board(*TWO, overview=(row,))
    found = pages.tables(board, chart_limit=50)
    assert found.overview is not None
    (line,) = found.overview.lines
    assert line.cells == (
        pages.Figures((60.0, None, None), 4),
        pages.Figures((20.0, None, None), None),
    )
    assert line.conditions == (
        pages.ConditionCell(True, (60.0, 58.0, 62.0), "SER 20.00", "1-2"),
        pages.ConditionCell(False, (None, None, None), "", ""),
    )
    assert [h.sub for h in found.overview.conditions] == ["JGA [95% CI], SER"] * 2
    assert [h.label for h in found.overview.means] == ["Mean JGA", "Mean SER"]
    assert found.overview.robustness.caption.startswith(
        "One line per team (its overview submission) from TTS to Human;"
    )


def test_each_move_of_a_shake_up_joined_to_its_row():
    rows = (_row(1, "A", rank=1), _row(2, "B", rank=2), _row(3, "C", rank=3))
    moves = (
        Move(1, 3, 1, 50.0, 60.0),  # up two places
        Move(2, 2, 2, 55.0, 55.0),  # stays
        Move(3, 1, 3, 58.0, 40.0),  # down two
        Move(9, None, 4, None, 30.0),  # not on this board (withdrawn since): left out
    )
    board = _board(
        _condition("tts", "TTS", rows),
        shakeups=(Shakeup("tts", "TTS", moves, mean_rank_change=4 / 3),),
    )
    (found,) = pages.shakeup_tables(board)
    assert [(line.row.team_name, line.mark) for line in found.lines] == [
        ("A", "gained"),
        ("B", ""),
        ("C", "lost"),
    ]
    assert found.mean_places == "1.33"
    board = _board(_condition("tts", "TTS", rows), shakeups=(Shakeup("tts", "TTS", ()),))
    assert pages.shakeup_tables(board)[0].mean_places == "—"


def _phase(**more: object) -> SimpleNamespace:
    values = {
        "has_split": False,
        "split_fraction": 0.5,
        "uses_ladder": False,
        "state": "open",
        "revealed": False,
        "name": "Dev",
        "slug": "dev",
        "challenge": SimpleNamespace(slug="dstc"),
        **more,
    }
    return SimpleNamespace(**values)


def _header(phase: SimpleNamespace, **rights: bool) -> pages.Header:
    metric = SimpleNamespace(label="JGA", direction="higher")
    tiebreak = SimpleNamespace(label="SER", direction="lower")
    values = {"several_conditions": True, "signed_in": True, "visible": True, "organiser": False}
    return pages.header(phase, primary=metric, tiebreak=tiebreak, **{**values, **rights})


def test_the_header_of_an_open_phase_with_a_split_for_a_participant():
    found = _header(_phase(has_split=True, split_fraction=0.3))
    assert found.split == (
        "Ranked on the public part of the test set (30% of its dialogues); the private part "
        "decides the final ranking, published when the organisers reveal it."
    )
    assert found.ranked == (
        "Each team's best submission per condition; ranked by JGA (higher is better), then SER "
        "(lower is better) on ties; 95% bootstrap intervals over dialogues in brackets."
    )
    assert [link.text for link in found.own] == ["My submissions", "Submit"]
    assert [link.text for link in found.downloads] == [
        "CSV",
        "JSON",
        "LaTeX",
        "Markdown",
        "compare two entries",
        "robustness, tested",
    ]
    assert found.downloads[0].before == "Download: "
    assert found.downloads[0].href == reverse("rankings:export-csv", args=("dstc", "dev"))


def test_the_header_for_an_organiser_of_a_revealed_phase_and_for_who_may_not_see():
    revealed = _phase(state="revealed", revealed=True)
    found = _header(revealed, organiser=True, several_conditions=False)
    assert found.split == ""
    assert found.ranked.startswith("Each team's best submission; ranked by JGA")
    assert [link.text for link in found.own] == ["My submissions"]
    assert [link.text for link in found.downloads][-3:] == [
        "errors across teams",
        "published final rankings",
        "Organiser dashboard",
    ]
    hidden = _header(_phase(has_split=True), visible=False, signed_in=False)
    assert hidden.downloads == () and hidden.own == ()


def test_the_reported_figures_under_the_boards_columns():
    board = _board(
        columns=(JGA, SER),
        reported=({"condition": "tts", "label": "Paper", "metrics": {"jga": 61.5}, "source": "X"},),
    )
    assert pages.reported(board) == (pages.Reported("tts", "Paper", ("61.50", "—"), "X"),)


def test_the_final_summary_of_a_published_ranking():
    row = OverviewRow(
        **_entry(7, "Seven"),  # type: ignore[arg-type]
        per_condition={"tts": (60.0, 20.0)},
        submissions=4,
        means=(60.0, 20.0),
    )
    board = _board(
        *TWO,
        overview=(row,),
        shakeups=(Shakeup("overview", "Overview", (), tau=0.5),),
    )
    found = pages.final_summary(board)
    assert found.headings == ("Mean JGA", "Mean SER", "JGA TTS", "JGA Human")
    assert found.lines == (pages.FinalLine(row, (60.0, None)),)
    assert found.shakeup is not None and found.shakeup.tau == 0.5
    assert found.width == 5
    no_tau = _board(*TWO, shakeups=(Shakeup("overview", "Overview", ()),))
    assert pages.final_summary(no_tau).shakeup is None


def test_the_embedded_tables_show_the_ranked_column_of_the_first_rows():
    rows = tuple(
        _row(n, f"T{n}", rank=n, cells=((20.0 + n, None, None), (60.0 - n, 59.0, 61.0)))
        for n in (1, 2, 3)
    )
    board = _board(_condition("tts", "TTS", rows), columns=(SER, JGA))
    (found,) = pages.embed_tables(board, 2)
    assert [(r.submission_id, cell) for r, cell in found.lines] == [
        (1, (59.0, 59.0, 61.0)),
        (2, (58.0, 59.0, 61.0)),
    ]
    assert found.more == pages.More(2, 3)


def test_the_published_rankings_page_before_anything_is_published():
    assert pages.nothing_published(_phase(state="open")) == (
        "Nothing is published yet. The final rankings of Dev appear here once the organisers "
        "reveal them, after the phase closes."
    )
    assert pages.nothing_published(_phase(state="closed")).endswith("reveal them.")
