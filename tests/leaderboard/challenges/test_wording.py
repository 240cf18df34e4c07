"""The remarks after a phase's state (``challenges.wording.phase_notes``), worked by hand."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

from django.utils import timezone

from leaderboard.challenges.wording import Note, phase_notes

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
