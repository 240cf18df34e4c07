"""What a submission's pages say (``submissions.wording``), each branch worked by hand."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest
from django.utils import timezone

from leaderboard.challenges.templatetags.times import when
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


def test_my_submissions_say_when_scores_are_hidden_or_only_public():
    assert wording.scores_notice(False, False) == (
        "Results are hidden until the organisers reveal them; you can still follow each "
        "submission's status."
    )
    assert wording.scores_notice(True, True) == (
        "Scores on the public part of the test set only; the private part is revealed at the end."
    )
    assert wording.scores_notice(True, False) == ""


def test_the_history_says_when_it_follows_the_public_part():
    assert wording.history_scope("public") == ", on the public part of the test set"
    assert wording.history_scope("all") == ""
    assert wording.history_scope(None) == ""


def test_a_refused_upload_counts_its_refused_and_unread_files():
    assert wording.refusal_summary(1, 0, 1) == "1 of 1 file was refused."
    assert wording.refusal_summary(2, 1, 3) == "2 of 3 files were refused; 1 was not read."
    assert wording.refusal_summary(1, 2, 3) == "1 of 3 files was refused; 2 were not read."
    assert wording.refusal_summary(0, 0, 0) == "The upload was refused."


def test_the_files_to_choose_again_name_the_unread_first():
    assert wording.files_to_choose(1, 0) == "the refused one once fixed"
    assert wording.files_to_choose(2, 1) == (
        "the one not read as it is, the refused ones once fixed"
    )
    assert wording.files_to_choose(1, 2) == (
        "the ones not read as they are, the refused one once fixed"
    )


def test_a_files_verdict_under_its_field():
    unread = {"name": "a.json", "kind": "unchecked", "meaning": "not read"}
    assert wording.file_verdict(unread) == "a.json was not read: choose it again."
    broken = {"name": "", "kind": "unreadable", "meaning": "could not be read"}
    assert wording.file_verdict(broken) == "The file: unreadable, could not be read."


def test_a_file_name_is_escaped_in_its_code_element():
    assert wording.file_name("a<b>.json") == " (<code>a&lt;b&gt;.json</code>)"
    assert wording.file_name("") == ""


def _quota(**values) -> dict:
    return {"team": SimpleNamespace(name="A&B"), "today": 2, "total": 5, **values}


def test_a_quota_line_gives_what_is_left_or_what_is_used_without_a_limit():
    limited = _quota(today_left=1, total_left=4)
    assert wording.quota_line(limited, 3, 9) == "A&B: today 1 of 3 left; in total 4 of 9 left."
    unlimited = _quota(today_left=None, total_left=None)
    assert wording.quota_line(unlimited, None, None) == (
        "A&B: today 2 used, no daily limit; in total 5 used, no limit."
    )


def test_a_used_up_quota_names_the_total_or_the_next_allowed_time():
    total = _quota(today_left=0, total_left=0, next_at=None)
    assert wording.used_up_line(total, "Test", 3, 1, "") == (
        "No submissions left: A&amp;B has used all 1 submission allowed in Test."
    )
    at = timezone.make_aware(dt.datetime(2026, 3, 2, 0, 0))
    daily = _quota(today_left=0, total_left=4, next_at=at)
    line = wording.used_up_line(daily, "Test", 3, 9, when(at))
    assert line.startswith(
        "No submissions left: A&amp;B has used its 3 submissions for today; the next one is "
        'allowed from <time datetime="2026-03-02T00:00:00+00:00">'
    )


def test_each_side_of_a_comparison_shows_at_most_the_limit_of_its_dialogues():
    only_a = [{"id": f"d{n}"} for n in range(3)]
    sides = wording.compare_sides(only_a, [], 2)
    assert sides == [
        {"side": "A", "other": "B", "rows": only_a[:2], "count": 3, "shown": " (first 2)"},
        {"side": "B", "other": "A", "rows": [], "count": 0, "shown": ""},
    ]
