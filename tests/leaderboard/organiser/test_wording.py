"""What the organiser dashboard says (``organisers.wording``), each branch worked by hand."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

from django.utils import timezone

from leaderboard.organisers import wording


def test_the_oldest_queued_wait_is_in_whole_seconds_or_a_dash():
    assert wording.oldest_queued(None) == "—"
    assert wording.oldest_queued(dt.timedelta(seconds=89.6)) == "90 s"
    assert wording.oldest_queued(dt.timedelta(minutes=2)) == "120 s"


def test_the_refused_files_are_counted_per_phase_and_condition():
    assert wording.refused_text(()) == "none"
    assert wording.refused_text((("Test", "Human", 1), ("Test", "ASR", 3))) == (
        "Test / Human: 1 submission the active version does not score; "
        "Test / ASR: 3 submissions the active version does not score"
    )


def test_without_workers_the_dashboard_says_since_when_uploads_wait():
    assert wording.workers_text(2, None) == "2"
    assert wording.workers_text(0, None) == (
        "<strong>none</strong>: no worker has sent a heartbeat for a minute; uploads wait in "
        "the queue until one runs"
    )
    last = timezone.make_aware(dt.datetime(2026, 3, 1, 9, 5, 7))  # the site's zone: UTC
    assert wording.workers_text(0, last) == (
        "<strong>none</strong>: no worker has sent a heartbeat for a minute (last "
        '<time datetime="2026-03-01T09:05:07+00:00">1 Mar 2026 09:05:07</time>); uploads wait '
        "in the queue until one runs"
    )


def test_a_silent_scheduler_is_named_with_what_stops():
    assert wording.scheduler_text("") == "running"
    assert wording.scheduler_text("the scheduler has not run for 5 minutes").startswith(
        "<strong>The scheduler has not run for 5 minutes</strong>: lost queue messages are not "
        "sent again"
    )


def _phase(**values) -> SimpleNamespace:
    fields = {
        "revealed": False,
        "has_split": False,
        "split_fraction": 1.0,
        "split_seed": 0,
        "has_private_board": False,
        "max_final_selections": 2,
        "get_results_visibility_display": lambda: "public",
    }
    return SimpleNamespace(**{**fields, **values})


def test_a_public_phase_has_no_final_selections():
    assert wording.phase_summary(_phase()) == (
        "Results public; no final selections (the live board is the ranking)."
    )


def test_a_split_phase_names_its_public_part_and_its_selections():
    phase = _phase(has_split=True, split_fraction=0.3, split_seed=7, has_private_board=True)
    assert wording.phase_summary(phase) == (
        "Results public; public part 30% of the dialogues (seed 7); up to 2 final selections "
        "per team."
    )


def test_a_revealed_phase_with_one_selection_says_so():
    phase = _phase(revealed=True, has_private_board=True, max_final_selections=1)
    assert wording.phase_summary(phase) == (
        "Results revealed (the private leaderboard is published); up to 1 final selection per team."
    )


def test_the_statuses_are_counted_or_none():
    assert wording.statuses_text({}) == "Submissions: none."
    assert wording.statuses_text({"scored": 3, "failed": 1}) == "Submissions: scored 3, failed 1."


def test_the_reveal_button_names_a_first_reveal_or_a_new_snapshot():
    assert wording.reveal_label(False) == "Preview and reveal the private leaderboard"
    assert wording.reveal_label(True) == "Preview and publish a new snapshot"


def test_the_reviewed_version_is_active_or_stored_only():
    assert wording.reference_state(True) == "This version is the active one."
    assert wording.reference_state(False).startswith("It is stored but <strong>not active</strong>")


def test_impact_scores_have_two_decimals_or_a_dash():
    assert wording.two_decimals(None) == "—"
    assert wording.two_decimals(75.0) == "75.00"
    assert wording.two_decimals(16.666) == "16.67"


def test_at_most_ten_changed_dialogues_are_named():
    assert wording.dialogues_changed("removed", ()) == ""
    assert wording.dialogues_changed("added", ("d1", "d2")) == " Dialogues added: d1, d2."
    many = tuple(f"d{n}" for n in range(1, 12))
    assert wording.dialogues_changed("removed", many) == (
        " Dialogues removed: d1, d2, d3, d4, d5, d6, d7, d8, d9, d10 ...."
    )


def test_a_failing_outcome_carries_the_scorers_message_escaped():
    assert wording.outcome("rescored", "") == "rescored"
    assert wording.outcome("fails", "no <dialogue> sng0002") == (
        'fails: <span class="scorer-message">no &lt;dialogue&gt; sng0002</span>'
    )


def test_a_withdrawal_names_its_run_or_the_disqualified_team():
    team = SimpleNamespace(name="A&B")
    run = SimpleNamespace(pk=12, method_name="<tracker>")
    one = wording.withdrawal_row(SimpleNamespace(submission=run, team=team, public=True))
    assert one == {
        "what": '<a href="/submissions/12/">submission 12</a> (&lt;tracker&gt;)',
        "shown": "on the leaderboard",
        "undo": "Undo for submission 12",
    }
    every = wording.withdrawal_row(SimpleNamespace(submission=None, team=team, public=False))
    assert every == {
        "what": "every run (disqualified)",
        "shown": "to the team only",
        "undo": "Undo for A&B",
    }
