"""Rank groups: runs of adjacent leaderboard entries that the paired test cannot tell apart.

Walking one condition's rows in rank order, an entry joins the previous entry's group when the
difference between the two in the primary metric is not significant under
``scoring.stats.paired_test`` (approximate randomisation over dialogues, on the same reference);
otherwise it starts a new group. Groups are chains of adjacent pairs, so the first and last
entries of a long group may differ significantly; the label says which ranks are tied with
their neighbours, as "1-2". The web layer computes no metric: numerators and denominators are
the per-dialogue counts the scorer stored in ``Result.breakdown``: for any task, each metric's
numerator and denominator per dialogue (``ratios``). A paired test needs the same denominators
on both sides; where they depend on the prediction (F1 scores), the entries are not comparable
and no group is formed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring.errors import ScoringError
from scoring.stats import paired_p_values

#: The paired test's threshold, as ``scoring.stats.PairedTest.significant`` uses it.
SIGNIFICANCE = 0.05

EN_DASH = "\u2013"

#: metric -> (per-dialogue numerator, per-dialogue denominator) from ``per_dialogue`` entries
COUNTS = {
    "jga": (lambda d: d["correct"], lambda d: d["turns"]),
    "ser": (lambda d: d["sub"] + d["del"] + d["ins"], lambda d: d["n_ref"]),
}


def columns(
    metric: str, dialogues: Sequence[dict[str, Any]]
) -> tuple[list[str], list[float], list[float]]:
    """(dialogue ids, numerators, denominators) of ``metric`` from a stored per-dialogue list
    (generic ``{"id", metric: [num, den]}`` entries, or dstc11's native counts)."""
    if dialogues and metric in dialogues[0]:
        return (
            [d["id"] for d in dialogues],
            [float(d[metric][0]) for d in dialogues],
            [float(d[metric][1]) for d in dialogues],
        )
    numerator, denominator = COUNTS[metric]
    return (
        [d["id"] for d in dialogues],
        [float(numerator(d)) for d in dialogues],
        [float(denominator(d)) for d in dialogues],
    )


def comparable(a: Sequence[dict[str, Any]] | None, b: Sequence[dict[str, Any]] | None) -> bool:
    """Whether two per-dialogue lists come from the same reference (same dialogues in the same
    order, with the same turn and slot counts): only then is a paired test meaningful."""
    if not a or not b or len(a) != len(b):
        return False
    return all(
        x["id"] == y["id"] and x["turns"] == y["turns"] and x["n_ref"] == y["n_ref"]
        for x, y in zip(a, b, strict=True)
    )


def comparable_on(
    metric: str, a: Sequence[dict[str, Any]] | None, b: Sequence[dict[str, Any]] | None
) -> bool:
    """Whether ``metric`` can be tested between two per-dialogue lists: same dialogues in the
    same order with the same denominators (not so for F1, whose denominators count predicted
    items)."""
    if not a or not b or len(a) != len(b):
        return False
    try:
        ids_a, _, den_a = columns(metric, a)
        ids_b, _, den_b = columns(metric, b)
    except (KeyError, TypeError, IndexError):
        return False
    return ids_a == ids_b and den_a == den_b and sum(den_a) > 0


def adjacent_ties(
    metric: str, dialogues: Sequence[Sequence[dict[str, Any]] | None], settings: Any
) -> list[bool]:
    """``ties[i]``: entry ``i`` is not significantly different from entry ``i - 1`` (False for
    the first entry, and wherever the test cannot be run: different references, nothing to
    count). One vectorised call per reference computes every adjacent pair's p-value."""
    ties = [False] * len(dialogues)
    by_reference: dict[tuple[float, ...], list[tuple[int, list[float], list[float]]]] = {}
    for i in range(1, len(dialogues)):
        a, b = dialogues[i - 1], dialogues[i]
        if a is None or b is None or not comparable_on(metric, a, b):
            continue
        _, num_a, den = columns(metric, a)
        _, num_b, _ = columns(metric, b)
        by_reference.setdefault(tuple(den), []).append((i, num_a, num_b))
    for den, pairs in by_reference.items():
        try:
            p_values = paired_p_values(
                [a for _, a, _ in pairs], [b for _, _, b in pairs], den, settings.n_boot,
                settings.seed,
            )  # fmt: skip
        except ScoringError:
            continue
        for (i, _, _), p_value in zip(pairs, p_values, strict=True):
            ties[i] = p_value >= SIGNIFICANCE
    return ties


def rank_groups(
    ranks: Sequence[int],
    dialogues: Sequence[Sequence[dict[str, Any]] | None],
    metric: str,
    settings: Any,
) -> list[str]:
    """One group label per entry (entries in rank order), e.g. ``["1-2", "1-2", "3"]``."""
    ties = adjacent_ties(metric, dialogues, settings)
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
