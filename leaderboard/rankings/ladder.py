"""The public board of a phase with the Ladder (``Phase.uses_ladder``): each entrant's shown
score on each condition is the parameter-free Ladder's (``scoring.ladder.climb``, Blum and
Hardt, ICML 2015) over its submissions on that condition in the order they were made, from
their per-dialogue statistics on the public part.

A row is the entrant's submission the Ladder shows (the last it accepted): its primary metric
is the shown score (rounded as the Ladder rounds, without an interval: the interval would tell
the unrounded score), its other columns that submission's own. Rows are ranked by the shown
score in the metric's direction, then the shown submission's tie-breaker, then the earlier
submission. An entrant none of whose submissions has statistics (not re-scored yet after a
change of the primary metric) is shown by its latest submission, without a primary score,
last. The overview ranks each entrant by the means over the conditions of its rows' first two
columns (the shown scores, and the shown submissions' second metric), under its most recently
shown submission. The private board is never the Ladder's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from leaderboard.challenges.models import Phase
from leaderboard.rankings.board import Counted, Ranked, ranking_key
from leaderboard.rankings.dialogues import part_dialogues
from scoring.ladder import climb


def _order(found: Counted) -> tuple[Any, int]:
    return (found.submitted_at, found.submission_id)


def laddered(
    phase: Phase, results: Sequence[Counted]
) -> tuple[dict[int, list[Ranked]], list[Counted]]:
    """(condition id -> its rows, best first; the Results the overview ranks, one submission
    id per entrant) of the Ladder board of ``phase``, from every Result the public board counts
    (``counted_values``)."""
    challenge = phase.challenge
    primary = challenge.primary
    direction = {m.name: m.direction for m in challenge.scoring_task().metrics}
    dialogues = part_dialogues(
        phase, "public", [(r.pk, r.reference_id, r.statistics) for r in results], primary
    )
    sequences: dict[tuple[int, tuple[int, str]], list[Counted]] = {}
    for r in sorted(results, key=_order):
        sequences.setdefault((r.condition_id, r.entrant), []).append(r)
    shown: dict[int, list[Counted]] = {}
    for (condition_id, _), sequence in sequences.items():
        pairs = []
        for r in sequence:
            found = dialogues.get(r.pk)
            pairs.append(found.columns[primary] if found is not None else None)
        rungs = climb(pairs, direction[primary])
        accepted = [r for r, rung in zip(sequence, rungs, strict=True) if rung.accepted]
        leader = accepted[-1] if accepted else sequence[-1]
        value = rungs[-1].shown if accepted else None
        intervals = {k: v for k, v in leader.intervals.items() if k != primary}
        row = leader._replace(values={**leader.values, primary: value}, intervals=intervals)
        shown.setdefault(condition_id, []).append(row)
    key = ranking_key(challenge)
    ranked: dict[int, list[Ranked]] = {}
    for condition_id, rows in shown.items():
        rows.sort(key=key)
        ranked[condition_id] = [(r, n + 1) for n, r in enumerate(rows)]
    return ranked, _overview(shown)


def _overview(shown: dict[int, list[Counted]]) -> list[Counted]:
    """Each entrant's rows on every condition, under its most recently shown submission (so
    the overview ranks one submission per entrant)."""
    by_entrant: dict[tuple[int, str], list[Counted]] = {}
    for rows in shown.values():
        for r in rows:
            by_entrant.setdefault(r.entrant, []).append(r)
    out: list[Counted] = []
    for rows in by_entrant.values():
        main = max(rows, key=_order)
        out += [
            r._replace(
                submission_id=main.submission_id,
                method_name=main.method_name,
                url=main.url,
                method_description=main.method_description,
                submitted_at=main.submitted_at,
                signature=main.signature,
            )
            for r in rows
        ]
    return out
