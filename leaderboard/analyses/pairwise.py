"""Two rows of a board (the live public one or a published snapshot) compared, per
condition, with the paired test.

For each condition where both submissions are ranked, the difference (A minus B) in the
primary metric with its paired bootstrap interval and p-value (``scoring``'s paired test over
the dialogues of the board's part of the split), and the number of dialogues each side wins
(a better per-dialogue ratio in the metric's direction). Only these aggregates leave the
module: no per-dialogue verdict of either team, and only rows the reader's board shows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from leaderboard.challenges.models import Phase
from leaderboard.rankings.board import Leaderboard, Row, counted
from leaderboard.rankings.dialogues import part_dialogues
from scoring import Resampling, ScoringError
from scoring.stats import PairedTest
from scoring.taskapi import DialogueRatios, MetricSpec, paired_tests


class PairError(ValueError):
    """The two rows cannot be compared on this board; the message is safe to show."""


@dataclass(frozen=True)
class PairedCondition:
    key: str
    label: str
    metric: str
    a: float | None = None
    b: float | None = None
    difference: float | None = None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    significant: bool = False
    #: dialogues where A's (B's) per-dialogue value is the better one, and where they are equal
    wins_a: int = 0
    wins_b: int = 0
    ties: int = 0
    #: why there is no test on this condition ("" when there is one)
    note: str = ""


def _row(board: Leaderboard, submission_id: int) -> Row | None:
    for condition in board.conditions:
        for row in condition.rows:
            if row.submission_id == submission_id:
                return row
    return None


def sides(board: Leaderboard, a: int, b: int) -> tuple[Row, Row]:
    """The board's rows of submissions ``a`` and ``b`` (on any condition)."""
    found = _row(board, a), _row(board, b)
    if found[0] is None or found[1] is None:
        raise PairError("Pick two entries of this leaderboard to compare.")
    if a == b:
        raise PairError("Pick two different entries to compare.")
    return found[0], found[1]


def requested_pair(params: Mapping[str, str]) -> tuple[int, int]:
    """The two submission ids a request names (``a``, ``b``), for the page and the API alike."""
    a, b = params.get("a", ""), params.get("b", "")
    if not (a.isdigit() and b.isdigit()):
        raise PairError("Pick two entries of this leaderboard to compare.")
    return int(a), int(b)


def paired(
    a: DialogueRatios | None, b: DialogueRatios | None, metric: MetricSpec, resampling: Resampling
) -> PairedTest | None:
    """The paired test of ``metric``, A minus B; None when either side has no per-dialogue
    statistics, or the two are not on the same dialogues with the same denominators."""
    if a is None or b is None:
        return None
    try:
        return paired_tests(a, b, [metric], resampling).get(metric.name)
    except ScoringError:
        return None


def wins(a: DialogueRatios, b: DialogueRatios, metric: str, direction: str) -> tuple[int, int, int]:
    """(dialogues A wins, B wins, ties) on the per-dialogue ratio of ``metric``; dialogues
    with nothing to count are left out."""
    num_a, den = a.columns[metric]
    num_b = b.columns[metric][0]
    won_a = won_b = tied = 0
    for x, y, d in zip(num_a, num_b, den, strict=True):
        if not d:
            continue
        if math.isclose(x, y):
            tied += 1
        elif (x > y) == (direction == "higher"):
            won_a += 1
        else:
            won_b += 1
    return won_a, won_b, tied


def compare(phase: Phase, board: Leaderboard, a: int, b: int) -> list[PairedCondition]:
    """Per condition of ``board``, A against B, on the dialogues of ``board.part`` (a
    snapshot's: the private part of a split)."""
    sides(board, a, b)
    challenge = phase.challenge
    task = challenge.scoring_task()
    metric = task.metric(challenge.primary)
    out: list[PairedCondition] = []
    for condition in board.conditions:
        shown = {r.submission_id for r in condition.rows}
        base: dict[str, Any] = {
            "key": condition.key,
            "label": condition.label,
            "metric": metric.name,
        }
        if a not in shown or b not in shown:
            out.append(
                PairedCondition(**base, note="Not both ranked on this condition's leaderboard.")
            )
            continue
        stored = {
            submission: (pk, reference, column)
            for submission, pk, reference, column in counted(phase, only=(a, b))
            .filter(condition_id=condition.condition_id)
            .values_list("submission_id", "pk", "reference_id", "primary_ratios")
        }
        ratios = part_dialogues(phase, board.part, list(stored.values()), metric.name)
        first, second = (ratios.get(stored[s][0]) if s in stored else None for s in (a, b))
        test = paired(first, second, metric, challenge.resampling())
        if test is None or first is None or second is None:
            out.append(
                PairedCondition(
                    **base,
                    note="No paired test: the two were not scored on the same dialogues with "
                    "the same denominators.",
                )
            )
            continue
        won_a, won_b, tied = wins(first, second, metric.name, metric.direction)
        out.append(
            PairedCondition(
                **base,
                a=test.a,
                b=test.b,
                difference=test.difference,
                low=test.ci[0],
                high=test.ci[1],
                p_value=test.p_value,
                significant=test.significant,
                wins_a=won_a,
                wins_b=won_b,
                ties=tied,
            )
        )
    return out
