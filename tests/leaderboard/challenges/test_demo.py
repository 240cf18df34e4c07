"""The demo command populates a leaderboard and can be run again."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from leaderboard.challenges import demo
from leaderboard.challenges.models import Challenge
from leaderboard.rankings.services import leaderboard
from leaderboard.submissions.models import Submission
from scoring.synth import make_gold

pytestmark = pytest.mark.django_db


def test_demo_creates_a_populated_leaderboard_once():
    call_command("demo")
    call_command("demo")
    challenge = Challenge.objects.get(slug=demo.SLUG)
    board = leaderboard(challenge.phases.get(slug="test"))
    assert [c.key for c in board.conditions] == [key for key, _, _ in demo.CONDITIONS]
    for condition in board.conditions:
        assert len(condition.rows) == len(demo.PARTICIPANTS)
        assert any(row.is_baseline for row in condition.rows)
    assert not Submission.objects.exclude(status=Submission.Status.SCORED).exists()
    assert authenticate(username="alice", password=demo.PASSWORD) is not None


def test_the_synthetic_gold_is_seeded():
    assert make_gold(10) == make_gold(10)
    assert make_gold(10, seed=1) != make_gold(10, seed=2)
