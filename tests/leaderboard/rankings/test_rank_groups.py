"""Rank groups from the paired test, with predictions whose expectation is obvious by
construction:

- ``gold``: the reference itself, every turn right;
- ``worse``: every turn wrong (each state is a single slot value no gold state has);
- ``close``: ``worse`` except the first dialogue, copied from the gold.

``close`` and ``worse`` differ in one dialogue only: swapping A and B within dialogues can only
flip the sign of that one difference, so every randomised |difference| equals the observed one
and p = 1: not significant, one group. ``gold`` beats ``close`` in every other dialogue, all in
the same direction; with 29 such dialogues a random sign pattern matches that extreme with
probability ~2^-28, so p = 1 / (1 + R): significant, its own group.
"""

from __future__ import annotations

import json

import pytest

from leaderboard.rankings.groups import rank_groups
from leaderboard.submissions import services
from scoring import Resampling
from scoring.synth import make_gold
from scoring.taskapi import DialogueRatios
from tests.leaderboard.boards import leaderboard
from tests.leaderboard.factories import approved_team, phase_with_references, upload

pytestmark = pytest.mark.django_db

GOLD = make_gold(30, seed=3)
WRONG = {"hotel": {"name": "no such hotel anywhere"}}
WORSE = {dialogue: [WRONG for _ in turns] for dialogue, turns in GOLD.items()}
FIRST = next(iter(GOLD))
CLOSE = {**WORSE, FIRST: GOLD[FIRST]}


def _submit(phase, prediction, method):
    team = approved_team(phase)
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files={"tts-verbatim": upload(prediction)},
        method_name=method,
        enqueue=False,
    )
    assert services.run_scoring(submission.pk) == "scored"
    return team


@pytest.mark.parametrize("primary", ["jga", "ser"])
def test_a_non_significant_margin_shares_a_group_and_a_clear_winner_stands_alone(primary):
    phase = phase_with_references(json.dumps(GOLD).encode(), keys=("tts-verbatim",))
    phase.challenge.primary_metric = primary
    phase.challenge.save()
    _submit(phase, WORSE, "worse")
    _submit(phase, GOLD, "gold")
    _submit(phase, CLOSE, "close")
    (board,) = leaderboard(phase).conditions
    assert [(r.method_name, r.rank, r.group) for r in board.rows] == [
        ("gold", 1, "1"),
        ("close", 2, "2\u20133"),
        ("worse", 3, "2\u20133"),
    ]


def test_entries_that_cannot_be_compared_never_share_a_group():
    """No per-dialogue counts (or different dialogues) means no test, so no tie is claimed."""

    resampling = Resampling(n_boot=100, level=0.95, seed=1)
    one = DialogueRatios(("a",), {"jga": ([1], [2]), "ser": ([1], [2])})
    other = DialogueRatios(("b",), one.columns)
    assert rank_groups([1, 2, 3], [one, other, None], "jga", resampling) == ["1", "2", "3"]
    assert rank_groups([1, 2], [one, one], "jga", resampling) == ["1\u20132", "1\u20132"]
