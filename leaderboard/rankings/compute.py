"""A phase's board computed from its Results: one read of every counted Result (its figures and
stored statistics, ``counted_values``), ranked here, then the statistics of one set of
resamples of the dialogues (rank groups, rank intervals, the detectable difference), the
overview, the shake-up of a final board and the charts. Only the board's worker task calls
``compute`` (``builds``); pages and the API read the stored board.

Per condition: each team's best Result (each baseline method of a team its own row, badged)
on the condition's active reference by the primary metric in its direction, then the
tie-breaking metric in its direction, then the earlier submission (``ranking_key``, on the
figures of the board's part of the split); undefined metrics rank last (the public board of a
phase with the Ladder ranks the Ladder's scores instead, ``ladder``; where teams choose their
public run, a team that chose one is ranked by that run instead of its best, ``represented``).
The overview ranks each team's best submission across the conditions (``overview``). Each
row counts the scored submissions behind it: the entrant's submissions with a score on that
condition (on the overview: on any condition), whatever the board ranks of them. What a board
holds is ``board``; who may see which part is ``challenges.visibility``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from leaderboard.challenges.models import Condition, Phase
from leaderboard.rankings import resampled
from leaderboard.rankings.board import (
    Column,
    ConditionBoard,
    Counted,
    Leaderboard,
    Ranked,
    Row,
    Shakeup,
    columns,
    counted,
    counted_values,
    entry,
    ranking_key,
    team_label,
)
from leaderboard.rankings.charts import figures
from leaderboard.rankings.dialogues import part_dialogues
from leaderboard.rankings.finals import final_submission_ids
from leaderboard.rankings.groups import comparable_on
from leaderboard.rankings.ladder import laddered
from leaderboard.rankings.models import ReportedResult
from leaderboard.rankings.overview import overview_plan, overview_rows
from leaderboard.rankings.shakeup import NO_SPLIT, final_shakeups
from leaderboard.submissions.models import Withdrawal
from scoring.stats import Draws
from scoring.taskapi import DialogueRatios

__all__ = ["compute", "draws_for", "part_dialogues", "reported_rows", "represented"]

#: Who a row stands for (``Counted.entrant``): a team, or one of its baseline methods.
Entrant = tuple[int, str]


def reported_rows(phase: Phase, *, organiser: bool = False) -> list[dict[str, Any]]:
    """Figures reported elsewhere that the organisers chose to show (all, for organisers)."""
    rows = ReportedResult.objects.filter(phase=phase).select_related("condition")
    if not organiser:
        rows = rows.filter(shown=True)
    return [
        {
            "condition": r.condition.key,
            "condition_label": r.condition.label or r.condition.key,
            "label": r.label,
            "metrics": dict(r.metrics),
            "source": r.source,
            "shown": r.shown,
            "scored_here": False,
        }
        for r in rows
    ]


def withdrawn_notes(phase: Phase) -> list[dict[str, Any]]:
    """What the board says of the organisers' public withdrawals, oldest first: whose (the
    team as the board names it), which run (its method name; empty for a whole team), why."""
    rows = (
        Withdrawal.objects.filter(phase=phase, public=True)
        .select_related("team", "submission")
        .order_by("at", "pk")
    )
    return [
        {
            "team": team_label(w.team)[0],
            "method": w.submission.method_name if w.submission else "",
            "reason": w.reason,
        }
        for w in rows
    ]


def draws_for(phase: Phase, kept: Draws | None = None) -> Draws:
    """The bootstrap's draws of ``phase``'s challenge: ``kept`` (the draws of an earlier board
    of the same build) when made with the challenge's number of resamples and seed, else new
    ones."""
    resampling = phase.challenge.resampling()
    if kept is not None and (kept.n_boot, kept.seed) == (resampling.n_boot, resampling.seed):
        return kept
    return Draws(resampling.n_boot, resampling.seed)


def compute(phase: Phase, part: str = "public", draws: Draws | None = None) -> Leaderboard:
    """Build the leaderboard without the cache. ``draws``: the resamples drawn for another
    board of the same build (``builds``: a phase's public and private boards, and each turn,
    draw each number of dialogues once); used when they are the challenge's (``draws_for``)."""
    challenge = phase.challenge
    primary = challenge.primary
    only = final_submission_ids(phase) if part == "private" else None
    # Every counted Result once, as values: the condition boards' rows and the overview.
    results = counted_values(phase, part, only)
    shown = columns(challenge, (r.metrics for r in results))
    per_condition, overall = scored_counts(phase, results if only is None else None)
    ladder = part == "public" and phase.uses_ladder
    if ladder:
        ranked, overview_input = laddered(phase, results)
    else:
        ranks = represented(results) if part == "public" and phase.public_run_chosen else results
        ranked, overview_input = _ranked(ranks, ranking_key(challenge)), ranks
    conditions = list(phase.conditions.order_by("order", "key"))
    planned = overview_plan(overview_input, shown, conditions)
    # the Result behind each overview row on each condition: (submission id, condition id)
    behind = {(r.submission_id, r.condition_id): r for r in overview_input}
    sources = [[behind.get((o.submission_id, c.pk)) for c in conditions] for o in planned]
    stored = _statistics(ranked, [r for row in sources for r in row])
    dialogues = part_dialogues(phase, part, list(stored.values()), primary)
    # the resamples of every condition's statistics, drawn once for each number of dialogues
    draws = draws_for(phase, draws)
    built = [
        _condition_board(
            phase,
            c,
            shown,
            per_condition,
            ranked.get(c.pk, []),
            dialogues,
            [s[n] for s in sources],
            draws,
        )
        for n, c in enumerate(conditions)
    ]
    boards = tuple(board for board, _ in built)
    groups = {b.key: {r.submission_id: r.group for r in b.rows if r.group} for b in boards}
    overview = overview_rows(
        planned,
        conditions,
        overall,
        groups,
        _overview_intervals(phase, [stats for _, stats in built], sources, dialogues),
    )
    shakeups: tuple[Shakeup, ...] = ()
    note = ""
    if part == "private":
        if phase.has_split:
            shakeups = final_shakeups(
                phase, shown, built, overview, conditions, behind, stored, draws
            )
        else:
            note = NO_SPLIT
    board = Leaderboard(
        phase_id=phase.pk,
        primary_metric=primary,
        conditions=boards,
        part=part,
        overview=overview,
        reported=tuple(reported_rows(phase)) if part == "public" else (),
        withdrawn=tuple(withdrawn_notes(phase)),
        version=str(phase.board_version),
        columns=shown,
        task=challenge.task,
        shakeups=shakeups,
        shakeup_note=note,
        ladder=ladder,
        facts=tuple(fact.data() for fact in challenge.facts()),
    )
    return replace(board, charts=figures(board))


def represented(results: Sequence[Counted]) -> list[Counted]:
    """The Results a public board ranks where teams choose their public run: of a team whose
    chosen run has counted Results (``Counted.chosen``: neither withdrawn nor failed), that
    run's alone, so it stands for the team on every condition and the overview (a condition
    it has no score on shows no row for the team); of every other team, all of them (its best
    is ranked, as without the choice). Baselines keep their own rows."""
    choosers = {r.team_id for r in results if r.chosen and not r.is_baseline}
    return [r for r in results if r.is_baseline or r.team_id not in choosers or r.chosen]


def scored_counts(
    phase: Phase, results: Sequence[Counted] | None
) -> tuple[dict[tuple[int, Entrant], int], dict[Entrant, int]]:
    """The scored submissions behind each row: (condition id, entrant) -> the entrant's
    submissions with a counted Result on the condition, and entrant -> those with one on any
    condition; from ``results`` (every Result a public board counts) or, for a board of some
    submissions only, one query."""
    if results is not None:
        rows = [(r.condition_id, r.submission_id, r.entrant) for r in results]
    else:
        rows = [
            (condition_id, submission_id, (team_id, method if baseline else ""))
            for condition_id, submission_id, team_id, baseline, method in counted(
                phase
            ).values_list(
                "condition_id",
                "submission_id",
                "submission__team_id",
                "submission__is_baseline",
                "submission__method_name",
            )
        ]
    per_condition: dict[tuple[int, Entrant], set[int]] = {}
    overall: dict[Entrant, set[int]] = {}
    for condition_id, submission_id, entrant in rows:
        per_condition.setdefault((condition_id, entrant), set()).add(submission_id)
        overall.setdefault(entrant, set()).add(submission_id)
    return (
        {key: len(found) for key, found in per_condition.items()},
        {key: len(found) for key, found in overall.items()},
    )


def _statistics(
    ranked: dict[int, list[Ranked]], behind: Sequence[Counted | None]
) -> dict[int, tuple[int, int, Any]]:
    """Result id -> (id, reference id, stored primary statistics) of every ranked Result and of
    the Results behind the overview (``behind``): the statistics a board resamples."""
    shown = [r for rows in ranked.values() for r, _ in rows]
    shown += [r for r in behind if r is not None]
    return {r.pk: (r.pk, r.reference_id, r.statistics) for r in shown}


def _ranked(results: Sequence[Counted], key: Callable[[Counted], Any]) -> dict[int, list[Ranked]]:
    """Condition id -> the best Result of each entrant there (``key``: ``ranking_key``), best
    first, with its rank."""
    keys = {r.pk: key(r) for r in results}
    best: dict[tuple[int, Entrant], Counted] = {}
    for r in results:
        at = (r.condition_id, r.entrant)
        found = best.get(at)
        if found is None or keys[r.pk] < keys[found.pk]:
            best[at] = r
    rows: dict[int, list[Counted]] = {}
    for r in best.values():
        rows.setdefault(r.condition_id, []).append(r)
    ranked: dict[int, list[Ranked]] = {}
    for condition_id, entries in rows.items():
        entries.sort(key=lambda r: keys[r.pk])
        ranked[condition_id] = [(r, n + 1) for n, r in enumerate(entries)]
    return ranked


def _primary_value(found: Counted | None, metric: str) -> float | None:
    """``found``'s value of ``metric`` on the board's part (``Counted.cell``'s first)."""
    return None if found is None else found.values.get(metric)


def _tested(
    found: Counted | None, metric: str, dialogues: dict[int, DialogueRatios | None]
) -> DialogueRatios | None:
    """``found``'s statistics to resample: none for a Result without a primary value."""
    if found is None or _primary_value(found, metric) is None:
        return None
    return dialogues.get(found.pk)


def _condition_board(
    phase: Phase,
    condition: Condition,
    shown: tuple[Column, ...],
    counts: dict[tuple[int, Entrant], int],
    ranked: list[Ranked],
    dialogues: dict[int, DialogueRatios | None],
    behind: list[Counted | None],
    draws: Draws,
) -> tuple[ConditionBoard, resampled.ConditionStatistics]:
    """``condition``'s board from its ranked Results (``_ranked``), with rank groups, rank
    intervals and the detectable difference from one set of resamples of their primary
    metric's per-dialogue statistics (``dialogues``, ``part_dialogues``), which also resamples
    the overview's Results there (``behind``)."""
    challenge = phase.challenge
    primary = challenge.primary
    direction = challenge.scoring_task().metric(primary).direction
    cells = {r.pk: tuple(r.cell(c.name) for c in shown) for r, _ in ranked}
    tested = [_tested(r, primary, dialogues) for r, _ in ranked]
    ranks = [rank for _, rank in ranked]
    stats = resampled.condition(
        primary,
        direction,
        ranks,
        [_primary_value(r, primary) for r, _ in ranked],
        tested,
        [_primary_value(r, primary) for r in behind],
        [_tested(r, primary, dialogues) for r in behind],
        challenge.resampling(),
        draws,
    )
    note = ""
    # Statistics on both sides of a pair, but no pair with the same denominators. (A board
    # whose Results are not re-scored yet after a change of the primary metric has none.)
    pairs = [(a, b) for a, b in itertools.pairwise(tested) if a is not None and b is not None]
    if pairs and not any(comparable_on(primary, a, b) for a, b in pairs):
        note = (
            "No rank groups: the paired bootstrap needs the same per-dialogue denominators on "
            "both sides, which this metric does not have here."
        )
    rows = tuple(
        Row(
            **entry(rank, r),
            signature=r.signature,
            submissions=counts.get((condition.pk, r.entrant), 0),
            group=label,
            cells=cells[r.pk],
            rank_low=interval[0] if interval else None,
            rank_high=interval[1] if interval else None,
        )
        for (r, rank), label, interval in zip(ranked, stats.groups, stats.intervals, strict=True)
    )
    board = ConditionBoard(
        condition.pk,
        condition.key,
        condition.label,
        rows,
        note,
        detectable=stats.detectable,
        detectable_note=stats.detectable_note,
    )
    return board, stats


def _overview_intervals(
    phase: Phase,
    stats: list[resampled.ConditionStatistics],
    behind: list[list[Counted | None]],
    dialogues: dict[int, DialogueRatios | None],
) -> list[tuple[int, int] | None]:
    """Each overview row's rank interval by the resampled mean over the conditions of the
    Results behind it (``behind``: per row, per condition; ``resampled.overview_intervals``)."""
    if not behind:
        return []
    challenge = phase.challenge
    primary = challenge.primary
    resampling = challenge.resampling()
    direction = challenge.scoring_task().metric(primary).direction
    means = resampled.overview_means([s.extra for s in stats], len(behind), resampling.n_boot)
    complete = [
        bool(row) and all(_tested(r, primary, dialogues) is not None for r in row) for row in behind
    ]
    return resampled.overview_intervals(means, complete, direction, resampling.level)
