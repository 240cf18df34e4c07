"""The per-dialogue statistics a board reads: a Result's primary metric on the board's part of
the split, from its stored ``primary_ratios`` (``submissions.ratios``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from leaderboard.challenges.models import Phase
from leaderboard.challenges.split import part_of
from leaderboard.rankings.board import split_part
from leaderboard.submissions import ratios
from leaderboard.submissions.models import Result
from scoring.taskapi import DialogueRatios


def part_dialogues(
    phase: Phase, part: str, stored: list[tuple[int, int, Any]], metric: str
) -> dict[int, DialogueRatios | None]:
    """Result id -> its per-dialogue statistics of ``metric``, the challenge's primary metric,
    on the board's part of the split (None when it has none), from ``(result id, reference
    id, primary_ratios)``.

    Every Result's statistics list its reference's dialogues in the reference's order
    (``DialogueRatios``), so the dialogue ids are read once per reference, from one of its
    Results, and split once; the Results of one reference share them."""
    which = split_part(phase, part)
    decoded = [
        (pk, reference_id, ratios.primary(data, metric)) for pk, reference_id, data in stored
    ]
    holders: dict[int, int] = {}  # reference id -> one of its Results with statistics
    for pk, reference_id, pair in decoded:
        if pair is not None:
            holders.setdefault(reference_id, pk)
    # reference id -> (its number of dialogues, the positions on this part, the ids there)
    kept: dict[int, tuple[int, np.ndarray | None, tuple[str, ...]]] = {}
    for reference_id, ids in Result.objects.filter(pk__in=holders.values()).values_list(
        "reference_id", "dialogues__ids"
    ):
        ids = ids or []
        keep = [i for i, d in enumerate(ids) if which is None or part_of(phase, d) == which]
        positions = None if len(keep) == len(ids) else np.asarray(keep, dtype=np.intp)
        kept[reference_id] = (len(ids), positions, tuple(ids[i] for i in keep))
    found: dict[int, DialogueRatios | None] = {}
    for key, reference_id, pair in decoded:
        total, positions, kept_ids = kept.get(reference_id, (0, None, ()))
        if pair is None or not kept_ids or not len(pair[0]) == len(pair[1]) == total:
            found[key] = None
            continue
        numerators, denominators = pair
        if positions is not None:
            numerators, denominators = numerators[positions], denominators[positions]
        found[key] = DialogueRatios(kept_ids, {metric: (numerators, denominators)})
    return found
