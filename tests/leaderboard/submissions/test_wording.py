"""What a submission's pages say (``submissions.wording``), each branch worked by hand."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from leaderboard.submissions import wording


def test_only_a_lower_is_better_metric_gets_a_remark():
    assert wording.hint("lower") == " (lower is better)"
    assert wording.hint("higher") == ""


def test_the_final_toggle_posts_the_opposite_of_the_selection():
    assert wording.final_toggle(True) == wording.Toggle("0", "Unselect as final submission")
    assert wording.final_toggle(False) == wording.Toggle("1", "Select as final submission")


def test_the_public_toggle_posts_the_opposite_of_the_choice():
    assert wording.public_toggle(True) == wording.Toggle(
        "0", "Stop showing on the public leaderboard"
    )
    assert wording.public_toggle(False) == wording.Toggle(
        "1", "Show this run on the public leaderboard"
    )


def test_a_withdrawn_run_and_a_disqualified_team_are_told_apart():
    assert wording.withdrawal_notice(True, "Team A", "Test") == {
        "heading": "Withdrawn by the organisers",
        "subject": "This run",
    }
    assert wording.withdrawal_notice(False, "Team A", "Test") == {
        "heading": "Team A is disqualified from Test",
        "subject": "No run of the team",
    }


def test_a_refused_upload_and_a_failed_scoring_have_their_own_heading():
    assert wording.error_heading("invalid") == "Why the upload was not accepted"
    assert wording.error_heading("failed") == "What went wrong"


def test_the_part_notice_names_the_public_part_or_the_teams_own_scores():
    public = wording.part_notice(True)
    assert public["caption"] == "Public-part scores"
    assert public["notice"].startswith("Scores on the public part of the test set only;")
    own = wording.part_notice(False)
    assert own == {
        "notice": "Your own scores; the leaderboard stays hidden until the organisers reveal it.",
        "caption": "Your scores",
    }


@pytest.mark.parametrize(
    ("status", "note"),
    [
        (
            "queued",
            "No results yet — scoring is waiting for a worker; this page updates when it ends.",
        ),
        ("scoring", "No results yet — scoring is in progress; this page updates when it ends."),
        (
            "scored",
            "No results on the current references — the organisers replaced a reference; "
            "the submission will be re-scored.",
        ),
        ("cancelled", ""),
    ],
)
def test_the_pending_note_follows_the_status(status, note):
    assert wording.pending_note(status) == note


def _result(key: str, label: str) -> SimpleNamespace:
    return SimpleNamespace(condition=SimpleNamespace(key=key, label=label))


def _summary(*results: SimpleNamespace) -> dict:
    jga = {"name": "jga", "label": "JGA", "direction": "higher"}
    ser = {"name": "ser", "label": "SER", "direction": "lower"}
    return {
        "columns": [jga, ser],
        "changed": [jga, ser],
        "rows": [
            {"result": r, "cells": [], "changes": [None if n == 0 else 1.5, None]}
            for n, r in enumerate(results)
        ],
    }


def test_two_conditions_get_a_column_of_changes_from_the_first():
    first, second = _result("human", "Human"), _result("asr", "ASR")
    table = wording.summary_table(_summary(first, second), second)
    assert table["caption"] == (
        "Every condition's scores [95% CI], and the change from Human; "
        "choose a condition for its details"
    )
    assert table["changed"] == [
        {"label": "Change in JGA"},
        {"label": "Change in SER (lower is better)"},
    ]
    assert [row["current"] for row in table["rows"]] == [False, True]
    assert table["rows"][1]["href"] == "?condition=asr#result-asr"
    assert table["rows"][0]["changes"] == [
        {"reference": True, "value": None},
        {"reference": True, "value": None},
    ]
    assert table["rows"][1]["changes"] == [
        {"reference": False, "value": 1.5},
        {"reference": False, "value": None},
    ]


def test_one_condition_has_no_changes_to_show():
    only = _result("human", "Human")
    table = wording.summary_table(_summary(only), only)
    assert (
        table["caption"] == "Every condition's scores [95% CI]; choose a condition for its details"
    )
    assert table["changed"] == []
    assert table["rows"][0]["changes"] == []
    assert table["rows"][0]["current"] is True


def test_the_slot_value_errors_read_as_one_line():
    edits = {"sub": 1, "del": 0, "ins": 2, "n_ref": 6}
    assert wording.edits_line(edits) == "S 1 / D 0 / I 2 of 6 reference slot values"
    assert wording.edits_line(None) == ""


def test_the_counts_follow_the_format_only_when_turns_were_counted():
    assert wording.counts_line({"turns": 4, "dialogues": 2}) == ", 4 turns in 2 dialogues"
    assert wording.counts_line({"turns": 0, "dialogues": 0}) == ""
    assert wording.counts_line({}) == ""


def test_the_breakdown_heading_names_domains_only_when_there_are_some():
    assert wording.breakdown_heading("JGA", True) == "JGA per domain and by turn position"
    assert wording.breakdown_heading("JGA", False) == "JGA by turn position"


@pytest.mark.parametrize(
    ("current", "active", "state"),
    [
        (True, True, {"state": "current", "css": ""}),
        (True, False, {"state": "superseded", "css": "superseded"}),
        (False, True, {"state": "superseded", "css": "superseded"}),
    ],
)
def test_a_result_is_current_only_on_the_active_reference(current, active, state):
    assert wording.history_state(current, active) == state
