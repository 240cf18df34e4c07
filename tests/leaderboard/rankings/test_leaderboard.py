"""Ranking: best result per team, NULLs last, ties by time, baselines, active reference; a
stored board moves on only with its phase's version (``Phase.changed``), then a build."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.utils import timezone

from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import add_reference
from leaderboard.submissions.models import Result, Submission
from scoring.synth import make_gold
from tests.leaderboard.boards import leaderboard
from tests.leaderboard.factories import approved_team, phase_with_references

pytestmark = pytest.mark.django_db

GOLD = json.dumps(make_gold(5, seed=1)).encode()
T0 = timezone.now() - dt.timedelta(hours=5)


@pytest.fixture
def phase():
    return phase_with_references(GOLD, keys=("tts-verbatim",))


def _result(phase, team, jga, ser, *, minutes=0, baseline=False, status="scored"):
    condition = phase.conditions.get()
    submission = Submission.objects.create(
        team=team,
        phase=phase,
        method_name=f"m{jga}",
        status=status,
        charged=True,
        is_baseline=baseline,
        created_at=T0 + dt.timedelta(minutes=minutes),
    )
    return Result.objects.create(
        submission=submission,
        condition=condition,
        reference=condition.references.get(active=True),
        signature="sig",
        **_columns(jga, ser),
    )


def _columns(jga, ser):
    """A Result's metrics and typed ranking columns (JGA ranked, SER breaks ties)."""
    return {"metrics": {"jga": jga, "ser": ser}, "primary": jga, "tiebreak": ser}


def _board(phase):
    """The board as a request sees it: with the phase (and its board version) read anew."""
    return leaderboard(Phase.objects.get(pk=phase.pk))


def _rows(phase):
    (board,) = _board(phase).conditions
    return [(r.rank, r.team_name, r.cells[0][0]) for r in board.rows]


def test_each_team_appears_once_with_its_best_result_and_null_last(phase):
    a, b, c = (approved_team(phase) for _ in range(3))
    _result(phase, a, 30.0, 50.0)
    _result(phase, a, 40.0, 45.0, minutes=1)
    _result(phase, b, None, None)
    _result(phase, c, 35.0, 40.0)
    assert _rows(phase) == [(1, a.name, 40.0), (2, c.name, 35.0), (3, b.name, None)]


def test_ser_breaks_jga_ties_then_the_earlier_submission_wins(phase):
    a, b, c = (approved_team(phase) for _ in range(3))
    _result(phase, a, 40.0, 30.0, minutes=5)
    _result(phase, b, 40.0, 30.0, minutes=1)
    _result(phase, c, 40.0, 20.0, minutes=9)
    assert [name for _, name, _ in _rows(phase)] == [c.name, b.name, a.name]


def test_rows_flag_baselines_and_count_submissions(phase):
    team, baseline = approved_team(phase), approved_team(phase)
    _result(phase, team, 40.0, 30.0)
    _result(phase, team, 20.0, 60.0)
    Submission.objects.create(team=team, phase=phase, method_name="bad", status="invalid")
    _result(phase, baseline, 30.0, 40.0, baseline=True)
    (board,) = _board(phase).conditions
    assert [(r.is_baseline, r.submissions) for r in board.rows] == [(False, 2), (True, 1)]


def test_only_the_active_reference_counts(phase):
    team = approved_team(phase)
    _result(phase, team, 40.0, 30.0)
    add_reference(phase.conditions.get(), GOLD + b" ", "new-gold.json")
    assert _rows(phase) == []


def test_a_result_written_with_the_orm_shows_once_the_phase_is_marked_changed_and_built(
    phase, django_capture_on_commit_callbacks
):
    """No model signal marks a board changed: a Result saved with the ORM moves no version and
    asks for no build, so the stored board keeps the rows it had; ``Phase.changed`` (what the
    services and the admin call) asks for the build once committed, and the build shows it."""
    team = approved_team(phase)
    assert _rows(phase) == []  # built, with no row yet
    version = Phase.objects.get(pk=phase.pk).board_version
    with django_capture_on_commit_callbacks() as callbacks:
        _result(phase, team, 40.0, 30.0)
    assert callbacks == []  # nothing asked for a build
    assert Phase.objects.get(pk=phase.pk).board_version == version
    assert _rows(phase) == []  # the board is current for its version: nothing was rebuilt
    with django_capture_on_commit_callbacks() as callbacks:
        Phase.changed(phase.pk)
    assert len(callbacks) == 1  # the build, asked for once the change commits
    assert Phase.objects.get(pk=phase.pk).board_version == version + 1
    assert _rows(phase) == [(1, team.name, 40.0)]


def test_the_overview_ranks_teams_by_the_mean_over_conditions():
    phase = phase_with_references(GOLD, keys=("a", "b"))
    one, two = approved_team(phase), approved_team(phase)
    for team, scores in ((one, (10.0, 50.0)), (two, (40.0, 30.0))):
        submission = Submission.objects.create(
            team=team, phase=phase, method_name="m", status="scored", charged=True
        )
        for condition, jga in zip(phase.conditions.order_by("key"), scores, strict=True):
            Result.objects.create(
                submission=submission,
                condition=condition,
                reference=condition.references.get(active=True),
                signature="sig",
                **_columns(jga, 100 - jga),
            )
    overview = _board(phase).overview
    assert [(r.rank, r.team_name, r.means) for r in overview] == [
        (1, two.name, (35.0, 65.0)),
        (2, one.name, (30.0, 70.0)),
    ]
