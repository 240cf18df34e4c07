"""Rank groups: runs of adjacent leaderboard entries that a paired bootstrap cannot tell apart.

Walking one condition's rows in rank order, an entry joins the previous entry's group unless
the difference between the two in the primary metric is significant: a two-sided paired
bootstrap p-value below 0.05, ``p = min(1, 2 * min(P(d* <= 0), P(d* >= 0)))`` over the
resamples, ``d*`` being the difference recomputed on each resample of the dialogues
(``scoring.stats.bootstrap_p_values``). Every entry of the condition is resampled with the
same resamples (the challenge's seed and number of resamples, the draws of its intervals), in
one matrix product; identical entries always share a group. Groups are chains of adjacent
pairs, so the first and last entries of a long group may differ significantly; the label
says which ranks are tied with their neighbours, as "1-2". The web layer computes no metric:
numerators and denominators are the per-dialogue statistics the scorer stored
(``submissions.ratios``). A paired test needs the same dialogues and denominators on both
sides; where the denominators depend on the prediction (F1 scores), the entries are not
comparable and no group is formed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scoring import Resampling
from scoring.stats import bootstrap_p_values
from scoring.taskapi import DialogueRatios

#: The significance level, as ``scoring.stats.PairedTest.significant`` uses it.
SIGNIFICANCE = 0.05

EN_DASH = "\u2013"


def comparable_on(metric: str, a: DialogueRatios | None, b: DialogueRatios | None) -> bool:
    """Whether ``metric`` can be tested between two results: the same dialogues in the same
    order with the same denominators (not so for F1, whose denominators count predictions)."""
    if a is None or b is None or metric not in a.columns or metric not in b.columns:
        return False
    if a.ids is not b.ids and a.ids != b.ids:
        return False
    den_a, den_b = a.columns[metric][1], b.columns[metric][1]
    return bool(np.array_equal(den_a, den_b)) and float(np.sum(den_a)) > 0


def adjacent_ties(
    metric: str, dialogues: Sequence[DialogueRatios | None], resampling: Resampling
) -> list[bool]:
    """``ties[i]``: entry ``i`` is not significantly different from entry ``i - 1`` (False for
    the first entry, and wherever the test cannot be run: different dialogues or
    denominators, nothing to count). The entries on the same dialogues are tested together,
    on one set of resamples (``bootstrap_p_values``, which leaves out the pairs whose
    denominators differ)."""
    ties = [False] * len(dialogues)
    # (the dialogues tested, the positions i whose pair (i - 1, i) is tested on them)
    tested: list[tuple[tuple[str, ...], list[int]]] = []
    for i in range(1, len(dialogues)):
        a, b = dialogues[i - 1], dialogues[i]
        if a is None or b is None or metric not in a.columns or metric not in b.columns:
            continue
        if a.ids is not b.ids and a.ids != b.ids:
            continue
        # Usually one reference, whose Results share one tuple of ids: compared, not hashed.
        for ids, positions in tested:
            if ids is a.ids or ids == a.ids:
                positions.append(i)
                break
        else:
            tested.append((a.ids, [i]))
    for _, positions in tested:
        entries = sorted({j for i in positions for j in (i - 1, i)})
        at = {j: k for k, j in enumerate(entries)}
        columns = [dialogues[j].columns[metric] for j in entries]  # type: ignore[union-attr]  # tested pairs have statistics
        p_values = bootstrap_p_values(
            [numerators for numerators, _ in columns],
            [denominators for _, denominators in columns],
            [(at[i - 1], at[i]) for i in positions],
            resampling.n_boot,
            resampling.seed,
        )
        for i, p_value in zip(positions, p_values, strict=True):
            ties[i] = p_value >= SIGNIFICANCE  # NaN (not comparable, nothing to count): no tie
    return ties


def rank_groups(
    ranks: Sequence[int],
    dialogues: Sequence[DialogueRatios | None],
    metric: str,
    resampling: Resampling,
) -> list[str]:
    """One group label per entry (entries in rank order), e.g. ``["1-2", "1-2", "3"]``."""
    return labels(ranks, adjacent_ties(metric, dialogues, resampling))


def labels(ranks: Sequence[int], ties: Sequence[bool]) -> list[str]:
    """The group labels of entries in rank order, ``ties[i]`` saying that entry ``i`` is not
    significantly different from entry ``i - 1``."""
    groups: list[list[int]] = []
    for i in range(len(ranks)):
        if ties[i] and groups:
            groups[-1].append(i)
        else:
            groups.append([i])
    found = [""] * len(ranks)
    for group in groups:
        first, last = ranks[group[0]], ranks[group[-1]]
        label = str(first) if first == last else f"{first}{EN_DASH}{last}"
        for i in group:
            found[i] = label
    return found
