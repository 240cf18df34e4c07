"""The shake-up of a final ranking: how far the public part of the split predicted the private
one, built with the private board (each team's final selections ranked on the private part).

For the overview and for each condition, the final board's entries are ranked again by their
primary metric on the public part (the same Results' ``public_primary`` column; the overview:
its means over the conditions; equal scores share the better rank), and:

- each entry's rank change (public rank minus final rank: places gained) and score shift
  (private-part score minus public-part score), and their means (the mean shift; the mean
  number of places moved, either way);
- Kendall's tau-b and Spearman's rho between the entries' public-part and private-part
  scores (``scoring.ranking.rank_correlations``: as ``scipy.stats.kendalltau`` and
  ``spearmanr``), each with a percentile bootstrap interval at the challenge's level. The
  bootstrap resamples the dialogues of each part, the two parts independently (they are
  disjoint), with the board's own draws (``rankings.resampled``: the private part's are the
  private board's, the public part's the public board's), recomputes both scores of every
  entry and both correlations, resample by resample. The uncertainty it measures is that of
  the test set's dialogues, which decided the two rankings; the entries are not a sample of
  anything (every final selection is on the board), so they are not resampled.

Entries without a score on either part are left out of the correlations. A phase without a
split has no public part: its final board has no shake-up, and says why (``NO_SPLIT``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from leaderboard.challenges.models import Condition, Phase
from leaderboard.rankings import resampled
from leaderboard.rankings.board import Column, ConditionBoard, Counted, Move, OverviewRow, Shakeup
from leaderboard.rankings.dialogues import part_dialogues
from leaderboard.submissions.models import Result
from scoring import Resampling
from scoring.ranking import rank_correlations
from scoring.stats import Draws, percentile_interval

NO_SPLIT = (
    "No shake-up: this phase has no public/private split, so the live board and the final "
    "ranking are on the same dialogues."
)
OVERVIEW = "overview"


def public_ranks(values: Sequence[float | None], direction: str) -> list[int | None]:
    """Each value's rank among ``values`` (1 + the number strictly better; None for None)."""
    sign = -1.0 if direction == "higher" else 1.0
    known = [sign * v for v in values if v is not None]
    return [None if v is None else 1 + sum(k < sign * v for k in known) for v in values]


def shakeup(
    key: str,
    label: str,
    submission_ids: Sequence[int],
    private_ranks: Sequence[int],
    public: Sequence[float | None],
    private: Sequence[float | None],
    resampled_public: Any,
    resampled_private: Any,
    direction: str,
    resampling: Resampling,
) -> Shakeup:
    """The shake-up of one final ranking: its entries (in board order) with their final
    ranks, their scores on each part and those scores resampled (n_boot x entries each)."""
    ranks = public_ranks(public, direction)
    moves = tuple(
        Move(s, rank, final, pub, priv)
        for s, rank, final, pub, priv in zip(
            submission_ids, ranks, private_ranks, public, private, strict=True
        )
    )
    both = [i for i, (p, q) in enumerate(zip(public, private, strict=True)) if None not in (p, q)]
    shifts = [moves[i].shift for i in both]
    changes = [abs(m.rank_change) for m in moves if m.rank_change is not None]
    found: dict[str, float | None] = {}
    if len(both) >= 2:
        x = np.array([[public[i] for i in both]], dtype=np.float64)
        y = np.array([[private[i] for i in both]], dtype=np.float64)
        tau, rho = rank_correlations(x, y)
        taus, rhos = rank_correlations(resampled_public[:, both], resampled_private[:, both])
        for name, point, samples in (("tau", tau[0], taus), ("rho", rho[0], rhos)):
            low, high = percentile_interval(samples, resampling.level)
            found[name] = _number(point)
            found[f"{name}_low"], found[f"{name}_high"] = _number(low), _number(high)
    return Shakeup(
        key=key,
        label=label,
        moves=moves,
        **found,
        mean_shift=float(np.mean(shifts)) if shifts else None,  # type: ignore[arg-type]  # ranked on both boards: every shift is set
        mean_rank_change=float(np.mean(changes)) if changes else None,
    )


def _number(value: Any) -> float | None:
    value = float(value)
    return None if np.isnan(value) else value


def final_shakeups(
    phase: Phase,
    shown: tuple[Column, ...],
    built: list[tuple[ConditionBoard, resampled.ConditionStatistics]],
    overview: tuple[OverviewRow, ...],
    conditions: list[Condition],
    behind: dict[tuple[int, int], Counted],
    stored: dict[int, tuple[int, int, Any]],
    draws: Draws,
) -> tuple[Shakeup, ...]:
    """The shake-ups of a final board (``compute``'s: its condition boards with their
    statistics ``built``, its overview, the Results behind each row ``behind`` and their stored
    statistics ``stored``): each ranking's entries again on the public part, from the same
    Results' public scores and public-part statistics (on the board's ``draws``); the
    overview's first."""
    challenge = phase.challenge
    primary = challenge.primary
    resampling = challenge.resampling()
    direction = challenge.scoring_task().metric(primary).direction
    public_dialogues = part_dialogues(phase, "public", list(stored.values()), primary)
    public_scores = dict(
        Result.objects.filter(pk__in=list(stored)).values_list("pk", "public_primary")
    )
    found: list[Shakeup] = []
    # the primary metric's column (the overview's means are of the first two columns)
    at = next((i for i, c in enumerate(shown) if c.primary), 0)
    public_extra = []
    for (board, stats), condition in zip(built, conditions, strict=True):
        rows = [behind[(r.submission_id, condition.pk)] for r in board.rows]
        sources = [behind.get((o.submission_id, condition.pk)) for o in overview]
        everything = [*rows, *sources]
        points = [public_scores.get(r.pk) if r is not None else None for r in everything]
        tested = [
            public_dialogues.get(r.pk) if r is not None and p is not None else None
            for r, p in zip(everything, points, strict=True)
        ]
        public = resampled.sample(primary, points, tested, [], resampling, draws, len(rows))
        public_extra.append(public.extra)
        found.append(
            shakeup(
                board.key,
                board.label,
                [r.submission_id for r in board.rows],
                [r.rank for r in board.rows],
                points[: len(rows)],
                [r.cells[at][0] if at < len(r.cells) else None for r in board.rows],
                public.values,
                stats.values,
                direction,
                resampling,
            )
        )
    public_means = []
    for o in overview:
        values = [
            public_scores.get(behind[(o.submission_id, c.pk)].pk)
            if (o.submission_id, c.pk) in behind
            else None
            for c in conditions
        ]
        complete = bool(values) and all(v is not None for v in values)
        public_means.append(sum(values) / len(values) if complete else None)  # type: ignore[arg-type]  # complete: no None
    n_boot = resampling.n_boot
    overall = shakeup(
        OVERVIEW,
        "Overview (mean over the conditions)",
        [o.submission_id for o in overview],
        [o.rank for o in overview],
        public_means,
        [o.means[at] if at < len(o.means) else None for o in overview],
        resampled.overview_means(public_extra, len(overview), n_boot),
        resampled.overview_means([s.extra for _, s in built], len(overview), n_boot),
        direction,
        resampling,
    )
    return (overall, *found)
