"""The demo command populates a leaderboard and can be run again."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.http import HttpRequest

from leaderboard.challenges.models import Challenge
from leaderboard.demo import dstc11
from leaderboard.submissions.models import Submission
from leaderboard.teams.services import address_verified as is_confirmed
from scoring.synth import make_gold
from tests.leaderboard.boards import leaderboard

pytestmark = pytest.mark.django_db


def test_demo_creates_a_populated_leaderboard_once():
    call_command("demo")
    call_command("demo")
    challenge = Challenge.objects.get(slug=dstc11.SLUG)
    board = leaderboard(challenge.phases.get(slug="test"))
    assert [c.key for c in board.conditions] == [key for key, _, _ in dstc11.CONDITIONS]
    for condition in board.conditions:
        assert len(condition.rows) == len(dstc11.PARTICIPANTS)
        assert any(row.is_baseline for row in condition.rows)
    assert not Submission.objects.exclude(status=Submission.Status.SCORED).exists()
    # The failure limit's backend comes first and needs the request it counts by.
    assert authenticate(HttpRequest(), username="alice", password=dstc11.PASSWORD) is not None
    # Every demo account comes out confirmed: it can take part at once.
    users = get_user_model().objects.filter(username__in=[*dstc11.PARTICIPANTS, dstc11.ORGANISER])
    assert users.count() == len(dstc11.PARTICIPANTS) + 1
    assert all(is_confirmed(user) for user in users)


def test_the_synthetic_gold_is_seeded():
    assert make_gold(10) == make_gold(10)
    assert make_gold(10, seed=1) != make_gold(10, seed=2)


def test_demo_also_creates_multiwoz22_and_dvd_challenges_with_their_own_metrics():
    from leaderboard.demo import other_tasks

    call_command("demo")
    call_command("demo")  # idempotent
    expected = {
        other_tasks.MULTIWOZ_SLUG: ("multiwoz22", "jga"),
        other_tasks.DVD_SLUG: ("dvd", "joint"),
    }
    for slug, (task, primary) in expected.items():
        challenge = Challenge.objects.get(slug=slug)
        assert challenge.task == task
        board = leaderboard(challenge.phases.get(slug="test"))
        assert board.columns[0].name == primary and board.columns[0].primary
        (condition,) = board.conditions
        # seeded systems with error rates 0.1, 0.2 and 0.35: far enough apart to rank in order
        assert [r.method_name for r in condition.rows] == [
            "Alpha tracker",
            "Beta tracker",
            "Baseline",
        ]
        assert board.charts
    names = [
        c.name
        for c in leaderboard(
            Challenge.objects.get(slug=other_tasks.MULTIWOZ_SLUG).phases.get(slug="test")
        ).columns
    ]
    assert "jga_seen" in names and "jga_unseen" in names
