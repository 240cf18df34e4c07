"""Rank groups: runs of adjacent leaderboard entries that the paired test cannot tell apart.

Walking one condition's rows in rank order, an entry joins the previous entry's group when the
difference between the two in the primary metric is not significant under
``scoring.stats.paired_test`` (approximate randomisation over dialogues, on the same reference);
otherwise it starts a new group. Groups are chains of adjacent pairs, so the first and last
entries of a long group may differ significantly; the label says which ranks are tied with
their neighbours, as "1-2". The web layer computes no metric: numerators and denominators are
the per-dialogue statistics the scorer stored (``Result.dialogues``). A paired test needs the
same dialogues and denominators on both sides; where the denominators depend on the prediction
(F1 scores), the entries are not comparable and no group is formed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scoring import Resampling, ScoringError
from scoring.stats import paired_p_values
from scoring.taskapi import DialogueRatios

#: The paired test's threshold, as ``scoring.stats.PairedTest.significant`` uses it.
SIGNIFICANCE = 0.05

EN_DASH = "\u2013"


def comparable_on(metric: str, a: DialogueRatios | None, b: DialogueRatios | None) -> bool:
    """Whether ``metric`` can be tested between two results: the same dialogues in the same
    order with the same denominators (not so for F1, whose denominators count predictions)."""
    if a is None or b is None or a.ids != b.ids or metric not in a.columns:
        return False
    den_a, den_b = a.columns[metric][1], b.columns.get(metric, ((), ()))[1]
    # numpy's sum: a stored column may be of uint8, whose Python sum would wrap around
    return list(den_a) == list(den_b) and float(np.sum(den_a)) > 0


def adjacent_ties(
    metric: str, dialogues: Sequence[DialogueRatios | None], resampling: Resampling
) -> list[bool]:
    """``ties[i]``: entry ``i`` is not significantly different from entry ``i - 1`` (False for
    the first entry, and wherever the test cannot be run: different references, nothing to
    count). One vectorised call per reference computes every adjacent pair's p-value."""
    ties = [False] * len(dialogues)
    by_reference: dict[tuple[float, ...], list[tuple[int, Sequence[float], Sequence[float]]]] = {}
    for i in range(1, len(dialogues)):
        a, b = dialogues[i - 1], dialogues[i]
        if a is None or b is None or not comparable_on(metric, a, b):
            continue
        num_a, den = a.columns[metric]
        by_reference.setdefault(tuple(den), []).append((i, num_a, b.columns[metric][0]))
    for den, pairs in by_reference.items():
        try:
            p_values = paired_p_values(
                [a for _, a, _ in pairs], [b for _, _, b in pairs], den, resampling.n_boot,
                resampling.seed,
            )  # fmt: skip
        except ScoringError:
            continue
        for (i, _, _), p_value in zip(pairs, p_values, strict=True):
            ties[i] = p_value >= SIGNIFICANCE
    return ties


def rank_groups(
    ranks: Sequence[int],
    dialogues: Sequence[DialogueRatios | None],
    metric: str,
    resampling: Resampling,
) -> list[str]:
    """One group label per entry (entries in rank order), e.g. ``["1-2", "1-2", "3"]``."""
    ties = adjacent_ties(metric, dialogues, resampling)
    groups: list[list[int]] = []
    for i in range(len(ranks)):
        if ties[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    labels = [""] * len(ranks)
    for group in groups:
        first, last = ranks[group[0]], ranks[group[-1]]
        label = str(first) if first == last else f"{first}{EN_DASH}{last}"
        for i in group:
            labels[i] = label
    return labels
