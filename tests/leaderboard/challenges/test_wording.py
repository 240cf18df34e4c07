"""The remarks after a phase's state (``challenges.wording.phase_notes``), worked by hand."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

from django.utils import timezone

from leaderboard.challenges.wording import (
    Note,
    page_nav,
    phase_links,
    phase_notes,
    quota_text,
    ranking_rule,
    registration_rule,
    registration_state,
)

NOW = timezone.make_aware(dt.datetime(2026, 3, 1, 12, 0))


def _phase(state: str, *, private: bool = False, post: bool = False) -> SimpleNamespace:
    return SimpleNamespace(
        state=state,
        opens_at=NOW + dt.timedelta(days=2),
        closes_at=NOW + dt.timedelta(hours=3),
        has_private_board=private,
        post_challenge=post,
    )


def test_an_open_phase_says_when_it_closes():
    assert phase_notes(_phase("open"), NOW) == [Note("countdown", "(closes in 3\xa0hours)")]


def test_an_upcoming_phase_says_when_it_opens():
    assert phase_notes(_phase("upcoming"), NOW) == [Note("countdown", "(opens in 2\xa0days)")]


def test_a_closed_phase_with_a_private_board_awaits_its_final_ranking():
    assert phase_notes(_phase("closed", private=True), NOW) == [
        Note("countdown", "(final ranking not published yet)")
    ]
    assert phase_notes(_phase("closed"), NOW) == []
    assert phase_notes(_phase("revealed", private=True), NOW) == []


def test_a_post_challenge_phase_says_so_after_its_countdown():
    assert phase_notes(_phase("open", post=True), NOW) == [
        Note("countdown", "(closes in 3\xa0hours)"),
        Note(
            "post-challenge",
            "(post-challenge: submitted after the reveal, not part of the challenge's results)",
        ),
    ]


def test_the_table_of_contents_names_only_the_pages_with_text():
    anchors = [item["anchor"] for item in page_nav({"evaluation": "How we score"})]
    assert anchors == [
        "announcements-heading",
        "phases-heading",
        "page-data",
        "page-evaluation",
        "rules-heading",
    ]
    every = page_nav({"description": "a", "evaluation": "b", "terms": "c"})
    assert [item["label"] for item in every] == [
        "Overview",
        "Announcements",
        "Phases",
        "Data",
        "Evaluation",
        "Rules",
        "Terms",
    ]


def test_the_quota_says_no_limit_where_there_is_none():
    assert quota_text(3, 20, False) == "3 per day, 20 in total"
    assert quota_text(None, None, True) == (
        "no limit per day, no limit in total; partial submissions accepted"
    )


def _row(state: str) -> SimpleNamespace:
    return SimpleNamespace(state=state, slug="test", challenge=SimpleNamespace(slug="dstc"))


def test_a_phase_links_its_final_ranking_once_revealed_and_submit_while_open():
    assert [link["label"] for link in phase_links(_row("open"), False)] == ["Leaderboard"]
    assert [link["label"] for link in phase_links(_row("open"), True)] == [
        "Leaderboard",
        "My submissions",
        "Submit",
    ]
    revealed = phase_links(_row("revealed"), True)
    assert [link["url"] for link in revealed] == [
        "/challenges/dstc/test/leaderboard/",
        "/challenges/dstc/test/snapshots/",
        "/challenges/dstc/test/submissions/",
    ]


def test_registration_is_by_approval_or_automatic():
    assert registration_rule("approval").startswith("Registration needs an organiser's approval")
    assert registration_rule("open") == (
        "Registration is automatic: a registered team can submit at once."
    )


def test_each_registration_status_reads_as_a_phrase_and_none_as_nothing():
    assert registration_state("approved") == "registered"
    assert registration_state("pending") == "registered, waiting for an organiser's approval"
    assert registration_state("rejected") == "registration declined"
    assert registration_state(None) == ""


def test_the_ranking_rule_names_both_metrics_and_their_directions():
    jga = SimpleNamespace(label="JGA", direction="higher")
    ser = SimpleNamespace(label="SER", direction="lower")
    assert ranking_rule(jga, ser).startswith(
        "Ranked by JGA (higher is better); ties are broken by SER (lower is better); each team's"
    )
