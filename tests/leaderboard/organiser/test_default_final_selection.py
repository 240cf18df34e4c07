"""The private board ranks, for a team that selected nothing, its best run on the public part
by the primary metric, not its first or its latest (``rankings.finals``), on a DVD-DST
challenge. The numbers are worked by hand on the three-turn reference of ``task_data``:
empty states get no turn right (Joint Acc 0), the partial run two of three (66.67), the
perfect one all three (100)."""

from __future__ import annotations

import json

import pytest

from leaderboard.rankings.compute import compute
from leaderboard.rankings.finals import final_submission_ids
from leaderboard.submissions import services
from leaderboard.submissions.services import select_final
from tests.leaderboard.factories import approved_team, upload
from tests.leaderboard.task_data import DVD_EMPTY, DVD_GOLD, DVD_PARTIAL, DVD_PERFECT, make_phase

pytestmark = pytest.mark.django_db


def _scored(team, phase, prediction: dict, method: str):
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files={"test": upload(prediction, f"{method}.json")},
        method_name=method,
        enqueue=False,
    )
    assert services.run_scoring(submission.pk) == "scored"
    submission.refresh_from_db()
    return submission


def _joint(board, row) -> float:
    return row.cells[[c.name for c in board.columns].index("joint")][0]


def test_a_team_without_selections_enters_its_best_run_not_its_first():
    phase = make_phase("dvd", json.dumps(DVD_GOLD).encode())
    assert phase.max_final_selections == 1
    quiet, chooser = approved_team(phase), approved_team(phase)
    # in this order: the first run is the worst, the last is not the best
    empty = _scored(quiet, phase, DVD_EMPTY, "empty")  # Joint Acc 0
    perfect = _scored(quiet, phase, DVD_PERFECT, "perfect")  # 100
    partial = _scored(quiet, phase, DVD_PARTIAL, "partial")  # 66.67
    # a team that chose keeps its choice, even a worse run than its other one
    chosen = _scored(chooser, phase, DVD_PARTIAL, "chosen")  # 66.67
    _scored(chooser, phase, DVD_PERFECT, "better")  # 100, not selected
    select_final(chosen, chooser.created_by, True)

    assert final_submission_ids(phase) == {perfect.pk, chosen.pk}
    board = compute(phase, "private")
    (condition,) = board.conditions
    assert [(r.rank, r.method_name, round(_joint(board, r), 2)) for r in condition.rows] == [
        (1, "perfect", 100.0),
        (2, "chosen", 66.67),
    ]

    # With two selections allowed, the quiet team enters its two best: 100 and 66.67, not 0.
    phase.max_final_selections = 2
    phase.save()
    assert final_submission_ids(phase) == {perfect.pk, partial.pk, chosen.pk}
    assert empty.pk not in final_submission_ids(phase)
