"""The reveal's shake-up on the hand-made world of ``construction`` (three final selections,
four public dialogues of one turn, three private ones of 2, 2 and 3 turns), where the public
part predicted the final ranking badly: B1 50, C1 25, A1 100 on the public part; B1 85.71,
C1 42.86, A1 14.29 on the private part. By hand: one concordant pair (B1, C1) and two
discordant ones, so Kendall's tau is -1/3 and Spearman's rho -1/2; A1 loses two places, B1 and
C1 gain one each; the mean shift is ((85.71 - 50) + (42.86 - 25) + (14.29 - 100)) / 3 =
-10.71 points. The intervals are recomputed here with scipy over the resamples the docs
describe (each part's dialogues in the reference's order; dialogue j of resample b is
``floor(r * n / 2**64)``, ``r`` raw value ``b * n + j`` of ``PCG64(seed)``), resample by
resample."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from leaderboard.rankings.snapshots import reveal
from leaderboard.submissions.models import Result
from tests.leaderboard.boards import leaderboard
from tests.leaderboard.organiser import construction as c
from tests.leaderboard.organiser.conftest import close
from tests.scoring.helpers import resample_indices

pytestmark = pytest.mark.django_db

FINALS = ("B1", "C1", "A1")  # the final ranking's order, by construction


def _resampled(world, part: str, seed: int, n_boot: int) -> np.ndarray:
    """(B x 3): each final selection's JGA on each resample of ``part``, in a loop."""
    counts = []
    for name in FINALS:
        result = Result.objects.get(submission=world.runs[name], current=True)
        ids, turns = result.dialogues["ids"], result.dialogues["turns"]
        kept = [
            t for d, t in zip(ids, turns, strict=True) if (d in c.PUBLIC_IDS) == (part == "public")
        ]
        counts.append(([t.count("1") for t in kept], [len(t) for t in kept]))
    n = len(counts[0][0])
    picks = resample_indices(n, n_boot, seed)
    return np.array(
        [[100 * sum(right[i] for i in row) / sum(turns[i] for i in row) for right, turns in counts]
         for row in picks]
    )  # fmt: skip


def test_the_shake_up_of_a_reveal_is_the_hand_worked_one_with_scipys_intervals(world):
    close(world.phase)
    reveal(world.phase, world.organiser)
    board = leaderboard(world.phase, "private")
    overview, condition = board.shakeups
    assert overview.key == "overview" and condition.key == "tts-verbatim"
    submissions = {world.runs[name].pk: name for name in FINALS}
    for found in (overview, condition):
        assert [submissions[m.submission_id] for m in found.moves] == list(FINALS)
        assert [m.public for m in found.moves] == pytest.approx([50, 25, 100])
        assert [m.private for m in found.moves] == pytest.approx([600 / 7, 300 / 7, 100 / 7])
        assert [m.public_rank for m in found.moves] == [2, 3, 1]
        assert [m.rank_change for m in found.moves] == [1, 1, -2]
        assert found.tau == pytest.approx(-1 / 3) and found.rho == pytest.approx(-1 / 2)
        assert found.mean_shift == pytest.approx((1000 / 7 - 175) / 3)
        assert found.mean_rank_change == pytest.approx(4 / 3)
    resampling = world.phase.challenge.resampling()
    public = _resampled(world, "public", resampling.seed, resampling.n_boot)
    private = _resampled(world, "private", resampling.seed, resampling.n_boot)
    for name, statistic, low, high in (
        ("tau", scipy_stats.kendalltau, condition.tau_low, condition.tau_high),
        ("rho", scipy_stats.spearmanr, condition.rho_low, condition.rho_high),
    ):
        with np.errstate(invalid="ignore"):
            samples = [statistic(a, b).statistic for a, b in zip(public, private, strict=True)]
        finite = [s for s in samples if not math.isnan(s)]  # a side all equal: left out
        assert (low, high) == pytest.approx(tuple(np.percentile(finite, [2.5, 97.5]))), name
        assert (
            low < high
        )  # the interval is not a point: the parts disagree from resample to resample
