"""``multiwoz22`` metrics, following the Schema-Guided DST evaluator's conventions with joint
accuracies taken across the frames of a turn (MultiWOZ style).

For one frame (a service in a user turn) every slot of the service's schema gets a score: a
slot active in the gold scores its match (see :mod:`scoring.multiwoz22.values`, 0 if not
predicted); an inactive slot scores 1 if not predicted, else 0. Then, per turn:

- **JGA**: the product of all slot scores of all frames of the turn (frames of gold services,
  plus predicted frames of other services, which are compared with an empty gold state). With
  exact matching it is 1 when the whole turn is right, else 0; fuzzy scores may be fractional.
- **cat-JGA / noncat-JGA**: the same over categorical / non-categorical slots only; a turn
  whose services have no such slot is left out.
- **average goal accuracy** (and its categorical / non-categorical parts): per gold frame with
  at least one active gold slot (of that kind), the mean score of its active slots; averaged
  over such frames.
- **active-intent accuracy**: share of gold frames whose predicted intent is the gold one.
- **requested-slot F1**: per gold frame, F1 of the requested slots (1 when both lists are
  empty, 0 when only one is), averaged over gold frames.

Every metric is thus ``sum(numerator) / sum(denominator)`` over dialogues, x 100.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from scoring.multiwoz22.data import NO_INTENT, Frame, Turn
from scoring.multiwoz22.schema import Schema
from scoring.multiwoz22.values import slot_score

METRICS = (
    "jga",
    "jga_cat",
    "jga_noncat",
    "avg_goal",
    "avg_cat",
    "avg_noncat",
    "intent_acc",
    "requested_f1",
)
_EMPTY = Frame("", {})


def _product(values: Iterable[float]) -> float:
    return math.prod(values)


def requested_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    common = sum((Counter(gold) & Counter(pred)).values())
    precision = common / len(pred) if pred else 1.0
    recall = common / len(gold) if gold else 1.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


class TurnScorer:
    """Scores user turns; holds the schema and the matching mode."""

    def __init__(self, schema: Schema, match: str, with_intents: bool) -> None:
        self.schema = schema
        self.match = match
        self.with_intents = with_intents

    def frame_slots(self, gold: Frame, pred: Frame, service: str) -> list[tuple[float, bool, bool]]:
        """(score, gold-active, categorical) for every slot of the service."""
        out = []
        for name, spec in self.schema.services[service].slots.items():
            g = gold.values.get(name)
            p = pred.values.get(name)
            if g:
                score = slot_score(spec.categorical, g, p[0], self.match) if p else 0.0
                out.append((score, True, spec.categorical))
            else:
                out.append((0.0 if p else 1.0, False, spec.categorical))
        return out

    def turn(self, gold: Turn, pred: Turn, sums: dict[str, list[float]]) -> float:
        """Add one turn's numerators and denominators to ``sums``; return its JGA score."""
        joint = 1.0
        cat: float | None = None
        noncat: float | None = None
        services = list(gold) + [s for s, f in pred.items() if s not in gold and f.values]
        for service in services:
            g = gold.get(service, _EMPTY)
            p = pred.get(service, _EMPTY)
            slots = self.frame_slots(g, p, service)
            joint *= _product(s for s, _, _ in slots)
            cats = [s for s, _, c in slots if c]
            nons = [s for s, _, c in slots if not c]
            if cats:
                cat = (1.0 if cat is None else cat) * _product(cats)
            if nons:
                noncat = (1.0 if noncat is None else noncat) * _product(nons)
            if service not in gold:
                continue
            for metric, keep in (
                ("avg_goal", lambda c: True),
                ("avg_cat", lambda c: c),
                ("avg_noncat", lambda c: not c),
            ):
                active = [s for s, a, c in slots if a and keep(c)]
                if active:
                    _add(sums, metric, math.fsum(active) / len(active))
            if self.with_intents:
                predicted_intent = p.intent if p.intent is not None else NO_INTENT
                _add(sums, "intent_acc", float(predicted_intent == g.intent))
                _add(sums, "requested_f1", requested_f1(g.requested or (), p.requested or ()))
        _add(sums, "jga", joint)
        if cat is not None:
            _add(sums, "jga_cat", cat)
        if noncat is not None:
            _add(sums, "jga_noncat", noncat)
        return joint


def _add(sums: dict[str, list[float]], metric: str, value: float) -> None:
    pair = sums[metric]
    pair[0] += value
    pair[1] += 1


def score_dialogues(
    schema: Schema,
    gold: Sequence[Sequence[Turn]],
    pred: Sequence[Sequence[Turn]],
    match: str,
    with_intents: bool,
    seen: Callable[[Turn], bool] | None = None,
) -> tuple[dict[str, tuple[list[float], list[float]]], list[list[tuple[float, bool]]]]:
    """Per-dialogue (numerators, denominators) of every metric, and per turn (JGA, seen)."""
    scorer = TurnScorer(schema, match, with_intents)
    columns: dict[str, tuple[list[float], list[float]]] = {m: ([], []) for m in METRICS}
    turns: list[list[tuple[float, bool]]] = []
    for gold_turns, pred_turns in zip(gold, pred, strict=True):
        sums = {m: [0.0, 0.0] for m in METRICS}
        marks = []
        for g, p in zip(gold_turns, pred_turns, strict=True):
            joint = scorer.turn(g, p, sums)
            marks.append((joint, seen(g) if seen is not None else True))
        for metric, (num, den) in sums.items():
            columns[metric][0].append(num)
            columns[metric][1].append(den)
        turns.append(marks)
    return columns, turns
