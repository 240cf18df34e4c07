"""A reader whose cache already holds a phase's board sees a change on its next read, whoever
wrote it: every change moves the phase's ``board_version`` in the database and boards are
cached under it. Saving a phase loaded before the change (as the admin does) never moves the
version back. Numbers by hand from ``tests.leaderboard.web``: the shared prediction gets 3 of 4
turns right (JGA 75.00); the gold itself gets all four (100.00)."""

from __future__ import annotations

import pytest

from leaderboard.challenges.models import Phase
from leaderboard.rankings import services as rankings
from leaderboard.submissions import services, tasks
from leaderboard.teams.services import set_anonymous
from tests.leaderboard.boards import leaderboard
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.web import GOLD, GOLD_BYTES, scored_submission

pytestmark = pytest.mark.django_db


def _shown(board) -> list[tuple[str, float]]:
    """(team, JGA) of the first condition's rows."""
    at = [c.name for c in board.columns].index("jga")
    return [(r.team_name, round(r.cells[at][0], 2)) for r in board.conditions[0].rows]


def _fresh(phase: Phase) -> Phase:
    """The phase as the next request of any process loads it."""
    return Phase.objects.get(pk=phase.pk)


def test_a_reader_with_a_warm_cache_sees_the_next_change(monkeypatch):
    phase = phase_with_references(GOLD_BYTES)
    first = approved_team(phase)
    scored_submission(first, phase)
    tasks.rebuild_board(phase.pk)  # the task a worker runs after scoring
    built: list[int] = []
    compute = rankings.compute
    monkeypatch.setattr(
        rankings, "compute", lambda p, part="public": built.append(1) or compute(p, part)
    )

    before = leaderboard(_fresh(phase))
    assert _shown(before) == [(first.name, 75.0)]
    # A worker built the board after the run was scored; the readers find it cached.
    assert leaderboard(_fresh(phase)) == before and len(built) == 0
    stale = _fresh(phase)  # e.g. an admin page opened now, saved later

    # A run scored by the services (as a worker does): a new Result on the board.
    second = approved_team(phase)
    run = services.submit(
        team=second, phase=phase, user=second.created_by, files=uploads(GOLD),
        method_name="gold", enqueue=False,
    )  # fmt: skip
    assert services.run_scoring(run.pk) == "scored"
    tasks.rebuild_board(phase.pk)
    moved = _fresh(phase).board_version
    assert moved > stale.board_version
    after = leaderboard(_fresh(phase))
    assert _shown(after) == [(second.name, 100.0), (first.name, 75.0)]
    assert len(built) == 1  # by the worker's task, right after scoring

    # A team change (hiding its name) shows on the next read too.
    set_anonymous(team=second, user=second.created_by, anonymous=True)
    assert _shown(leaderboard(_fresh(phase))) == [
        (f"Anonymous team {second.alias}", 100.0),
        (first.name, 75.0),
    ]
    moved = _fresh(phase).board_version

    # Saving the stale instance writes its other fields, never its older version: the
    # renamed phase is one change more.
    assert stale.board_version < moved
    stale.name = "Test (renamed)"
    stale.save()
    saved = _fresh(phase)
    assert saved.name == "Test (renamed)" and saved.board_version == moved + 1
    assert _shown(leaderboard(saved)) == [
        (f"Anonymous team {second.alias}", 100.0),
        (first.name, 75.0),
    ]
