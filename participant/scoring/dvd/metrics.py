"""``dvd`` metrics per turn, aggregated as ratios of per-dialogue sums.

- **Joint Acc**: the predicted (object, slot, value) triples equal the gold triples.
- **Joint Acc IoU@0.5 / @0.7**: Joint Acc and the segment IoU is at least 0.5 / 0.7.
- **object identity F1**, **slot F1**, **state F1**: micro F1 over all turns of, respectively,
  object ids, (object, slot) pairs and (object, slot, value) triples: ``2 TP / (2 TP + FP +
  FN)``.

Segment IoU: frames are points on a line and a segment ``(start, end)`` covers
``end - start`` frames, so IoU = overlap / union of the two lengths (a zero-length union is 1
when the segments are equal, else 0). When neither side has a segment the IoU is 1: both agree
that the turn has no temporal reference. When only one side has one it is 0. The reference
implementation marks "no segment" as ``(-1, -1)`` and tests the gold with ``== (-1, -1)``; but
the gold is read from JSON, where it is the list ``[-1, -1]``, and a list never equals a tuple
in Python, so the test fails and the turn falls through to "no predicted segment: IoU 0". Every
segment-less turn thus scores 0 even when the prediction agrees. That penalises correct
predictions (and makes IoU@t lower than Joint Acc on purely spatial questions for no reason),
so we do not reproduce it.
"""

from __future__ import annotations

from collections.abc import Sequence

from scoring.dvd.data import DvdState

METRICS = ("joint", "joint_iou50", "joint_iou70", "object_f1", "slot_f1", "state_f1")
THRESHOLDS = {"joint_iou50": 0.5, "joint_iou70": 0.7}


def segment_iou(gold: tuple[int, int] | None, pred: tuple[int, int] | None) -> float:
    if gold is None or pred is None:
        return 1.0 if gold is None and pred is None else 0.0
    overlap = max(0, min(gold[1], pred[1]) - max(gold[0], pred[0]))
    union = (gold[1] - gold[0]) + (pred[1] - pred[0]) - overlap
    if union == 0:
        return 1.0 if gold == pred else 0.0
    return overlap / union


def _f1_counts(gold: frozenset[object], pred: frozenset[object]) -> tuple[int, int]:
    """(2 TP, 2 TP + FP + FN)."""
    tp = len(gold & pred)
    return 2 * tp, len(gold) + len(pred)


def score_dialogues(
    gold: Sequence[Sequence[DvdState]], pred: Sequence[Sequence[DvdState]]
) -> tuple[dict[str, tuple[list[float], list[float]]], list[str]]:
    """Per-dialogue (numerators, denominators) of every metric, and per dialogue the joint
    verdict of each turn (``1`` right, ``0`` wrong)."""
    columns: dict[str, tuple[list[float], list[float]]] = {m: ([], []) for m in METRICS}
    verdicts = []
    for gold_turns, pred_turns in zip(gold, pred, strict=True):
        sums = {m: [0.0, 0.0] for m in METRICS}
        marks = []
        for g, p in zip(gold_turns, pred_turns, strict=True):
            g_triples, p_triples = g.triples(), p.triples()
            joint = g_triples == p_triples
            marks.append("1" if joint else "0")
            iou = segment_iou(g.segment, p.segment)
            sums["joint"][0] += joint
            for metric, threshold in THRESHOLDS.items():
                sums[metric][0] += joint and iou >= threshold
            for metric in ("joint", *THRESHOLDS):
                sums[metric][1] += 1
            for metric, g_items, p_items in (
                ("object_f1", frozenset(g.objects), frozenset(p.objects)),
                ("slot_f1", _pairs(g), _pairs(p)),
                ("state_f1", g_triples, p_triples),
            ):
                twice_tp, total = _f1_counts(g_items, p_items)
                sums[metric][0] += twice_tp
                sums[metric][1] += total
        for metric, (num, den) in sums.items():
            columns[metric][0].append(num)
            columns[metric][1].append(den)
        verdicts.append("".join(marks))
    return columns, verdicts


def _pairs(state: DvdState) -> frozenset[object]:
    return frozenset((o, s) for o, slots in state.objects.items() for s in slots)
