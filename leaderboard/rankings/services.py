"""Leaderboards: queries over Results, ranked by the ORM, cached per phase, part and version.

Per condition: each team's best Result (each baseline method of a team its own row, badged)
on the condition's active reference by the primary
metric in its direction (typed ``primary`` columns, see ``submissions.metrics``), then the
tie-breaking metric in its direction, then the earlier submission; undefined metrics rank last.
The overview ranks each team's best submission across the conditions (``overview``). What a
board holds is ``board``; who may see which part is ``challenges.visibility``.

A board is cached under the phase's ``board_version``, which every change to what the board
shows increments in the database (``Phase.changed``): whichever process wrote the change,
every process's next read builds the new board, whatever cache it has.

One rebuild at a time per board: the process that builds a version holds a lock in the cache
(``cache.add``, ``locks``) while the others serve the last board built (``previous``); a reader
with no board to show waits for the builder at most ``LEADERBOARD_REBUILD_SECONDS``, and the
lock expires after ``locks.HOLD_SECONDS``, so a builder that died holds nobody up longer. A
worker rebuilds the public board right after an upload, a re-score or a scored submission (a
task of its own, ``rebuild``, on the re-score queue when there is one, for which each of them
reserves the lock, ``locks.reserve``), so readers rarely pay for it; while submissions keep
coming, that worker keeps the lock and builds again at most every half
``LEADERBOARD_REBUILD_SECONDS``, so readers do not take turns at building a board that changes
every second.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, F, OrderBy, Window
from django.db.models.functions import Rank, RowNumber

from leaderboard.challenges.models import Condition, Phase
from leaderboard.challenges.split import part_of
from leaderboard.rankings import locks
from leaderboard.rankings.board import (
    HIDDEN_STATUSES,
    Cell,
    Column,
    ConditionBoard,
    Leaderboard,
    Row,
    cell,
    columns,
    counted,
    drawn,
    entrant_key,
    entry,
    prefix,
    split_part,
)
from leaderboard.rankings.charts import figures
from leaderboard.rankings.finals import final_submission_ids
from leaderboard.rankings.groups import comparable_on, rank_groups
from leaderboard.rankings.locks import CACHE_VERSION
from leaderboard.rankings.models import ReportedResult
from leaderboard.rankings.overview import overview_rows
from leaderboard.submissions import queue
from leaderboard.submissions.models import Result, Submission
from scoring.taskapi import DialogueRatios


def cache_key(phase: Phase, part: str = "public") -> str:
    return f"leaderboard:v{CACHE_VERSION}:phase:{phase.pk}:{part}:{phase.board_version}"


def previous_key(phase: Phase, part: str = "public") -> str:
    """Where the last board built for ``phase``'s ``part`` is kept, whatever its version."""
    return f"leaderboard:v{CACHE_VERSION}:phase:{phase.pk}:{part}:previous"


def served_key(phase: Phase, part: str = "public") -> str:
    """Where the version of the last board built (``previous``) is kept, to be read alone."""
    return f"leaderboard:v{CACHE_VERSION}:phase:{phase.pk}:{part}:previous-version"


def lock_key(phase: Phase, part: str = "public") -> str:
    return locks.lock_key(phase.pk, part)


#: How often a reader with no board to show looks again for the one being built.
POLL_SECONDS = 0.05


def leaderboard(phase: Phase, part: str = "public") -> Leaderboard:
    """The phase's rankings, as of the phase's ``board_version`` (loaded with ``phase``);
    while another process builds that version, the previous board when there is one."""
    key = cache_key(phase, part)
    deadline = time.monotonic() + settings.LEADERBOARD_REBUILD_SECONDS
    while True:
        board = cache.get(key)
        if board is not None:
            return board
        if cache.add(lock_key(phase, part), key, locks.HOLD_SECONDS):
            return _build(phase, part)
        previous = cache.get(previous_key(phase, part))
        if previous is not None:
            return previous
        if cache.get(lock_key(phase, part)) is None:
            # No lock yet the add failed: the builder just finished, or the cache is down
            # (which answers every call with nothing): never wait on it.
            board = cache.get(key)
            return compute(phase, part) if board is None else board
        if time.monotonic() >= deadline:
            # The builder is slow or gone, and there is nothing older to show.
            return compute(phase, part)
        time.sleep(POLL_SECONDS)


def served_version(phase: Phase, part: str = "public") -> str | None:
    """The version of the board ``leaderboard`` returns now without building one, read
    without loading a board: the phase's current version when its board is built; while
    another process builds it, the last board built (None if that is gone too); None when
    the next reader has to build it."""
    if cache.has_key(cache_key(phase, part)):
        return str(phase.board_version)
    if cache.has_key(lock_key(phase, part)):
        found = cache.get(served_key(phase, part))
        return None if found is None else str(found)
    return None


def _build(phase: Phase, part: str) -> Leaderboard:
    """Build and cache ``part``'s board (the caller holds the lock), then release the lock, or
    pass it to a worker when the board changed meanwhile (``_hand_over``)."""
    passed = False
    try:
        board = compute(phase, part)
        _store(phase, part, board)
        passed = _hand_over(phase.pk, part, phase.board_version)
    finally:
        if not passed:
            cache.delete(lock_key(phase, part))
    return board


def _hand_over(phase_id: int, part: str, built: int) -> bool:
    """After a build of version ``built`` of the public board: if the phase changed meanwhile,
    keep the lock, reserved for a worker's rebuild (``queue.enqueue_rebuild``), instead of
    freeing it for the next reader, who would otherwise build it in a web process. True when
    the lock was passed on (the caller must not release it)."""
    moved = Phase.objects.filter(pk=phase_id).exclude(board_version=built)
    if part != "public" or not moved.exists():
        return False
    token = locks.handed_over(phase_id, part)
    queue.enqueue_rebuild(phase_id, token)
    return True


def _store(phase: Phase, part: str, board: Leaderboard) -> None:
    """Keep ``board`` as ``phase``'s current board and as the last one built."""
    seconds = settings.LEADERBOARD_CACHE_SECONDS
    cache.set_many(
        {
            cache_key(phase, part): board,
            previous_key(phase, part): board,
            served_key(phase, part): str(phase.board_version),
        },
        seconds,
    )


#: How long a worker goes on rebuilding a board that keeps changing before it lets the next
#: task sent after a scoring take over (its queue's other tasks wait meanwhile).
REBUILD_LOOP_SECONDS = 60


def rebuild(phase_id: int, token: str = "", part: str = "public") -> None:
    """Build the phase's current board unless it is cached or someone else builds it (a
    worker's task, sent after a submission's Results are written, with the ``token`` of the
    lock the scoring reserved for it, ``locks.reserve``), so the next reader finds it.

    While the board keeps changing (submissions scored one after another), the worker builds
    it again without letting go of the lock, so readers get the last board built instead of
    building the next one themselves; it starts a build at most once every half
    ``LEADERBOARD_REBUILD_SECONDS``, so a board changed every second costs a few builds a
    minute, not one after another, and readers see a change within that half plus one build.
    """
    lock, hold = locks.lock_key(phase_id, part), locks.HOLD_SECONDS
    ours = bool(token) and cache.get(lock) == token
    phase = _current(phase_id)
    if phase is None or cache.has_key(cache_key(phase, part)):
        if ours:
            cache.delete(lock)
        return
    if ours:
        cache.set(lock, token, hold)  # the time the task waited in the queue is given back
    elif not cache.add(lock, "worker", hold):
        return
    deadline = time.monotonic() + REBUILD_LOOP_SECONDS
    handed = False
    try:
        while True:
            started, built = time.monotonic(), phase.board_version
            _store(phase, part, compute(phase, part))
            phase = _current(phase_id)
            if phase is None or phase.board_version == built:
                return
            if time.monotonic() >= deadline:
                # the queue's other tasks go first; the next rebuild is a task of its own
                handed = _hand_over(phase_id, part, built)
                return
            # Changed meanwhile: hold the lock through the pause and the next build.
            cache.set(lock, "worker", hold)
            pause = settings.LEADERBOARD_REBUILD_SECONDS / 2
            time.sleep(max(0.0, started + pause - time.monotonic()))
            phase = _current(phase_id)
            if phase is None:
                return
    finally:
        if not handed:
            cache.delete(lock)


def _current(phase_id: int) -> Phase | None:
    return Phase.objects.select_related("challenge").filter(pk=phase_id).first()


def reported_rows(phase: Phase, *, organiser: bool = False) -> list[dict[str, Any]]:
    """Figures reported elsewhere that the organisers chose to show (all, for organisers)."""
    rows = ReportedResult.objects.filter(phase=phase).select_related("condition")
    if not organiser:
        rows = rows.filter(shown=True)
    return [
        {
            "condition": r.condition.key,
            "label": r.label,
            "metrics": dict(r.metrics),
            "source": r.source,
            "shown": r.shown,
            "scored_here": False,
        }
        for r in rows
    ]


def ordering(phase: Phase, part: str) -> list[OrderBy]:
    """Best first: the primary metric, then the tie-breaker, each in its direction (NULLs
    last), then the earlier submission."""
    challenge = phase.challenge
    direction = {m.name: m.direction for m in challenge.scoring_task().metrics}
    p = prefix(phase, part)
    keys = []
    for column, metric in (("primary", challenge.primary), ("tiebreak", challenge.tiebreak)):
        field = F(f"{p}{column}")
        lower = direction[metric] == "lower"
        keys.append(field.asc(nulls_last=True) if lower else field.desc(nulls_last=True))
    return [*keys, F("submission__created_at").asc(), F("submission_id").asc()]


def compute(phase: Phase, part: str = "public") -> Leaderboard:
    """Build the leaderboard without the cache."""
    challenge = phase.challenge
    counts = dict(
        Submission.objects.filter(phase=phase)
        .exclude(status__in=HIDDEN_STATUSES)
        .values_list("team_id")
        .annotate(n=Count("pk"))
        .values_list("team_id", "n")
    )
    only = final_submission_ids(phase) if part == "private" else None
    shown = columns(challenge, counted(phase, only).values_list("metrics", flat=True))
    conditions = list(phase.conditions.order_by("order", "key"))
    boards = tuple(_condition_board(phase, part, c, only, shown, counts) for c in conditions)
    groups = {b.key: {r.submission_id: r.group for r in b.rows if r.group} for b in boards}
    board = Leaderboard(
        phase_id=phase.pk,
        primary_metric=challenge.primary,
        conditions=boards,
        part=part,
        overview=overview_rows(phase, part, only, shown, conditions, counts, groups),
        reported=tuple(reported_rows(phase)) if part == "public" else (),
        version=str(phase.board_version),
        columns=shown,
        task=challenge.task,
    )
    return replace(board, charts=figures(board))


def part_dialogues(
    phase: Phase, part: str, stored: list[tuple[int, int, Any]], metric: str
) -> dict[int, DialogueRatios | None]:
    """Result id -> its per-dialogue statistics of ``metric`` on the board's part of the
    split (None when it has none), from ``(result id, reference id, stored column)``.

    Every Result's statistics list its reference's dialogues in the reference's order
    (``DialogueRatios``), so the dialogue ids are read once per reference, from one of its
    Results, and split once."""
    which = split_part(phase, part)
    holders: dict[int, int] = {}  # reference id -> one of its Results with statistics
    for pk, reference_id, column in stored:
        if column:
            holders.setdefault(reference_id, pk)
    # reference id -> (its number of dialogues, the positions on this part, the ids there)
    kept: dict[int, tuple[int, list[int], tuple[str, ...]]] = {}
    for reference_id, ids in Result.objects.filter(pk__in=holders.values()).values_list(
        "reference_id", "dialogues__ids"
    ):
        ids = ids or []
        keep = [i for i, d in enumerate(ids) if which is None or part_of(phase, d) == which]
        kept[reference_id] = (len(ids), keep, tuple(ids[i] for i in keep))
    found: dict[int, DialogueRatios | None] = {}
    for key, reference_id, column in stored:
        total, keep, kept_ids = kept.get(reference_id, (0, [], ()))
        numerators, denominators = column or ((), ())
        if not kept_ids or not len(numerators) == len(denominators) == total:
            found[key] = None
            continue
        if len(keep) != total:
            numerators = [numerators[i] for i in keep]
            denominators = [denominators[i] for i in keep]
        found[key] = DialogueRatios(kept_ids, {metric: (numerators, denominators)})
    return found


def _condition_board(
    phase: Phase,
    part: str,
    condition: Condition,
    only: frozenset[int] | None,
    shown: tuple[Column, ...],
    counts: dict[int, int],
) -> ConditionBoard:
    challenge = phase.challenge
    primary = challenge.primary
    order = ordering(phase, part)
    best = (
        counted(phase, only)
        .filter(condition=condition)
        .annotate(nth=Window(RowNumber(), partition_by=[entrant_key()], order_by=order))
        .filter(nth=1)
        .values_list("pk", flat=True)
    )
    which = split_part(phase, part)
    ranked = list(
        drawn(Result.objects.filter(pk__in=list(best)), which)
        .select_related("submission__team")
        .annotate(rank=Window(Rank(), order_by=order))
        .order_by(*order)
    )
    cells: dict[int, tuple[Cell, ...]] = {
        r.pk: tuple(cell(r, c.name, which) for c in shown) for r in ranked
    }
    # Only the primary metric's per-dialogue statistics are needed for the rank groups.
    stored = list(
        Result.objects.filter(pk__in=[r.pk for r in ranked]).values_list(
            "pk", "reference_id", f"dialogues__columns__{primary}"
        )
    )
    dialogues = part_dialogues(phase, part, stored, primary)
    at = next((i for i, c in enumerate(shown) if c.name == primary), None)
    tested = [
        dialogues.get(r.pk) if at is not None and cells[r.pk][at][0] is not None else None
        for r in ranked
    ]
    labels = rank_groups([r.rank for r in ranked], tested, primary, challenge.resampling())
    note = ""
    pairs = list(itertools.pairwise(tested))
    if pairs and not any(comparable_on(primary, a, b) for a, b in pairs):
        note = (
            "No rank groups: the paired test needs the same per-dialogue denominators on both "
            "sides, which this metric does not have here."
        )
    rows = tuple(
        Row(
            **entry(r.rank, r.submission),
            signature=r.signature,
            submissions=counts.get(r.submission.team_id, 0),
            group=label,
            cells=cells[r.pk],
        )
        for r, label in zip(ranked, labels, strict=True)
    )
    return ConditionBoard(condition.pk, condition.key, condition.label, rows, note)
