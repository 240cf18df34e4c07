"""An organisers' team may rank several baselines: each baseline method is its own row on every
board (per condition and overview), badged, while a participant team keeps one row (its best).
Figures by hand (``tests.leaderboard.web``): the gold itself as a prediction is JGA 100.00;
the hand-worked prediction, one turn wrong of four, 75.00."""

from __future__ import annotations

import pytest
from django.urls import reverse

from leaderboard.rankings.compute import compute
from leaderboard.submissions import services
from tests.leaderboard.boards import built
from tests.leaderboard.factories import KEYS, approved_team, phase_with_references
from tests.leaderboard.web import GOLD, GOLD_BYTES, PREDICTION, prediction_file

pytestmark = pytest.mark.django_db


def _run(team, phase, method: str, content, *, baseline: bool = False):
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files={key: prediction_file(content) for key in KEYS},
        method_name=method,
        is_baseline=baseline,
        enqueue=False,
    )
    assert services.run_scoring(submission.pk) == "scored"
    return submission


def test_each_baseline_method_has_its_own_badged_row(client):
    phase = phase_with_references(GOLD_BYTES)
    organisers, team = approved_team(phase), approved_team(phase)
    _run(organisers, phase, "oracle", GOLD, baseline=True)
    _run(organisers, phase, "tracker", PREDICTION, baseline=True)
    _run(organisers, phase, "tracker", GOLD, baseline=True)  # the same method, better: one row
    _run(team, phase, "first", PREDICTION)
    _run(team, phase, "second", GOLD)  # the team's best: one row for the team

    board = compute(phase)
    expected = [
        ("oracle", True, 100.0),
        ("tracker", True, 100.0),
        ("second", False, 100.0),
    ]
    for condition in board.conditions:
        rows = [(r.method_name, r.is_baseline, r.cells[0][0]) for r in condition.rows]
        assert sorted(rows) == sorted(expected)
    assert sorted((r.method_name, r.is_baseline) for r in board.overview) == [
        ("oracle", True),
        ("second", False),
        ("tracker", True),
    ]
    built(phase)  # as the board's worker builds the boards after the scorings
    page = client.get(reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug]))
    # two baseline rows on each of 3 conditions and on the overview, each with its badge
    assert page.text.count('<span class="badge">baseline</span>') == 2 * (len(KEYS) + 1)
