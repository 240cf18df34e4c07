"""What the analyses' pages say (``analyses.pages``): which board each is on, the options the
pairwise form selects, the cells of the pairwise and robustness tables, the slots' error rates
per condition. Expectations written by hand."""

from __future__ import annotations

from types import SimpleNamespace

from django.urls import reverse

from leaderboard.analyses import pages
from leaderboard.analyses.crossteam import Analysis
from leaderboard.analyses.robustness import Change, EntryChanges


def _phase(**more: object) -> SimpleNamespace:
    values = {
        "has_split": False,
        "revealed": False,
        "slug": "test",
        "challenge": SimpleNamespace(slug="dstc"),
        **more,
    }
    return SimpleNamespace(**values)


def test_the_note_on_a_published_snapshot_links_it():
    snapshot = SimpleNamespace(number=2)
    found = pages.board_note(_phase(has_split=True), snapshot)
    assert found == pages.BoardNote(
        "On the published final ranking, ",
        reverse("rankings:snapshot", args=("dstc", "test", 2)),
        "snapshot 2",
        ", ranked on the private part of the test set: its entries, under the names it shows.",
    )
    assert pages.board_note(_phase(), snapshot).after == ": its entries, under the names it shows."


def test_the_note_on_the_live_board_links_the_final_ranking_once_revealed():
    assert pages.board_note(_phase(has_split=True), None) == pages.BoardNote(
        "On the live public leaderboard, ranked on the public part of the test set.", "", "", ""
    )
    assert pages.board_note(_phase(revealed=True), None) == pages.BoardNote(
        "On the live public leaderboard. ", "?board=final", "On the published final ranking", "."
    )


ENTRIES = [(11, "A: m"), (12, "B: m"), (13, "C: m")]


def test_the_options_select_the_entry_asked_for_else_the_default():
    assert [o.selected for o in pages.options(ENTRIES, 13, 1)] == [False, False, True]
    # B's list opens on the second entry, A's on none (the first shows)
    assert [o.selected for o in pages.options(ENTRIES, None, 1)] == [False, True, False]
    assert [o.selected for o in pages.options(ENTRIES, None, -1)] == [False, False, False]
    # an id that is no entry's selects none
    assert [o.selected for o in pages.options(ENTRIES, 99, 1)] == [False, False, False]
    assert pages.options(ENTRIES, None, 1)[0] == pages.Option(11, "A: m", False)


def test_a_p_value_with_four_decimals_marked_when_significant():
    assert pages.p_value(0.01234, True) == "0.0123 (significant)"
    assert pages.p_value(0.5, False) == "0.5000"
    assert pages.p_value(None, False) == "—"


def test_a_robustness_cell_and_a_baselines_name():
    tested = Change("human", "Human", change=-2.5, low=-4.0, high=-1.0, p_value=0.002)
    untested = Change("noisy", "Noisy", note="No per-dialogue statistics.")
    entry = EntryChanges(1, "Org", "TripPy", True, 5, 60.0, (tested, untested))
    team = EntryChanges(2, "Team A", "T5", False, 6, 58.0, ())
    baseline, other = pages.robustness_lines([entry, team])
    assert baseline.name == "Org: TripPy (baseline)"
    assert baseline.changes == (
        ("human", "\u22122.50 [\u22124.00, \u22121.00], p = 0.0020"),
        ("noisy", "No per-dialogue statistics."),
    )
    assert other.name == "Team A"
    assert pages.change(Change("x", "X", change=1.0, low=0.5, high=1.5)) == (
        "+1.00 [+0.50, +1.50], p = —"
    )


def test_each_slots_error_rate_on_each_condition_in_the_analysis_order():
    rates = {"hotel-area": {"tts": 12.5, "human": 20.0}, "taxi": {"tts": 3.0}}
    analysis = Analysis((), rates=rates)
    assert pages.slot_rates(analysis, [("tts", "TTS"), ("human", "Human")]) == (
        ("hotel-area", ("12.50", "20.00")),
        ("taxi", ("3.00", "—")),
    )
