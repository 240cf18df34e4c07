"""Rank groups from the paired bootstrap, with predictions whose expectation is obvious by
construction:

- ``gold``: the reference itself, every turn right;
- ``worse``: every turn wrong (each state is a single slot value no gold state has);
- ``close``: ``worse`` except the first dialogue, copied from the gold.

A resample draws 30 of the 30 dialogues with replacement. ``close`` and ``worse`` differ in
the first dialogue only, where ``close`` is better: their resampled difference is 0 when the
resample misses that dialogue, with probability (29/30)^30 ~ 0.36, and in ``close``'s favour
otherwise, so P(d* <= 0) ~ 0.36 and p = 2 * 0.36 ~ 0.72: not significant, one group.
``gold`` beats ``close`` in every other dialogue and ties on the first: the difference is in
``gold``'s favour unless all 30 draws are the first dialogue (30^-30), so p = 0: significant,
its own group.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from leaderboard.rankings.groups import adjacent_ties, rank_groups
from leaderboard.submissions import services
from scoring import Resampling
from scoring.synth import make_gold
from scoring.taskapi import DialogueRatios
from tests.leaderboard.boards import leaderboard
from tests.leaderboard.factories import approved_team, phase_with_references, upload
from tests.scoring.helpers import resample_indices

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
    return submission


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


def test_results_not_rescored_after_a_change_of_the_primary_metric_have_no_groups_until_they_are():
    """Each Result stores its primary metric's statistics for the board, named: until the
    re-scoring that a change of the primary metric asks for, the board has no statistics of
    the new one to test (and says nothing about denominators)."""
    phase = phase_with_references(json.dumps(GOLD).encode(), keys=("tts-verbatim",))
    submissions = [
        _submit(phase, p, m) for p, m in ((WORSE, "worse"), (GOLD, "gold"), (CLOSE, "close"))
    ]
    phase.challenge.primary_metric = "ser"
    phase.challenge.save()
    (board,) = leaderboard(phase).conditions
    assert [r.group for r in board.rows] == ["1", "2", "3"]
    assert board.note == ""
    for submission in submissions:
        assert services.rescore(submission, enqueue=False)
        assert services.run_scoring(submission.pk) == "scored"
    (board,) = leaderboard(phase).conditions
    # as for SER in the test above
    assert [(r.method_name, r.group) for r in board.rows] == [
        ("gold", "1"),
        ("close", "2\u20133"),
        ("worse", "2\u20133"),
    ]


def test_entries_that_cannot_be_compared_never_share_a_group():
    """No per-dialogue counts (or different dialogues) means no test, so no tie is claimed."""

    resampling = Resampling(n_boot=100, level=0.95, seed=1)
    one = DialogueRatios(("a",), {"jga": ([1], [2]), "ser": ([1], [2])})
    other = DialogueRatios(("b",), one.columns)
    assert rank_groups([1, 2, 3], [one, other, None], "jga", resampling) == ["1", "2", "3"]
    assert rank_groups([1, 2], [one, one], "jga", resampling) == ["1\u20132", "1\u20132"]


def _p_value(a, b, turns, resampling):
    """The paired bootstrap p-value of A - B, resample by resample in plain Python."""
    n = len(turns)
    at_most = at_least = 0
    for picks in resample_indices(n, resampling.n_boot, resampling.seed):
        difference = sum(int(a[i]) - int(b[i]) for i in picks) / sum(int(turns[i]) for i in picks)
        at_most += difference <= 0
        at_least += difference >= 0
    return min(1.0, 2 * min(at_most, at_least) / resampling.n_boot)


def test_identical_entries_and_a_one_dialogue_margin_tie_and_a_clear_gap_does_not():
    resampling = Resampling(n_boot=300, level=0.95, seed=5)
    rng = np.random.default_rng(2)
    ids = tuple(f"d{i}" for i in range(25))
    turns = rng.integers(2, 7, size=25)
    good = turns - rng.integers(0, 2, size=25)  # at least one turn right in every dialogue
    one_off = good.copy()
    one_off[7] -= 1  # one turn fewer right, in one dialogue
    entries = [good, good.copy(), one_off, np.zeros(25, dtype=int)]
    dialogues = [DialogueRatios(ids, {"jga": (e, turns)}) for e in entries]
    by_loop = [_p_value(a, b, turns, resampling) for a, b in itertools.pairwise(entries)]
    assert by_loop[0] == 1.0  # identical
    assert by_loop[1] >= 0.05  # (24/25)^25 ~ 0.36 of the resamples miss d7: p ~ 0.72
    assert by_loop[2] == 0.0  # every dialogue apart, the same way
    ties = adjacent_ties("jga", dialogues, resampling)
    assert ties == [False] + [p >= 0.05 for p in by_loop]
    labels = rank_groups([1, 1, 3, 4], dialogues, "jga", resampling)
    assert labels == ["1\u20133", "1\u20133", "1\u20133", "4"]
