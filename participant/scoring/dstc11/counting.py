"""Turn-by-turn comparison: every count JGA, SER and their breakdowns need.

Per-domain JGA is computed over the turns in which the domain appears in the gold or the
predicted state: such a turn counts as correct for the domain when the slots of that domain
agree exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from scoring.dstc11.model import Prediction, Reference
from scoring.dstc11.states import State


class DialogueStats(NamedTuple):
    """Sufficient statistics of one dialogue: what intervals and paired tests resample."""

    dialogue_id: str
    turns: int
    correct: int
    n_ref: int
    sub: int
    dele: int
    ins: int
    #: one character per user turn: '1' correct, '0' wrong.
    turn_correct: str


class Counts(NamedTuple):
    """Everything measured on one prediction against one reference, before statistics."""

    turns: int
    correct: int
    n_ref: int
    sub: int
    dele: int
    ins: int
    #: slot key -> {n_ref, n_pred, correct, sub, del, ins, accuracy}
    per_slot: Mapping[str, Mapping[str, float]]
    #: domain -> {turns, correct, jga}
    per_domain: Mapping[str, Mapping[str, float]]
    dialogues: tuple[DialogueStats, ...]
    out_of_ontology: Mapping[str, int]


#: The errors of one wrong turn: substituted, deleted and inserted slot keys, and the gold
#: state's domains. A plain tuple, so that identical errors count as one (thousands of wrong
#: turns share a few hundred patterns); what follows from it is worked out once per pattern.
_TurnErrors = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], frozenset[str]]


def _turn_errors(gold: State, pred: State, gold_domains: frozenset[str]) -> _TurnErrors:
    sub: list[str] = []
    dele: list[str] = []
    for k, v in gold.items():
        p = pred.get(k)
        if p != v:
            (dele if p is None else sub).append(k)
    # Every predicted key is a gold key or an insertion, so the insertions can be counted
    # before they are looked for.
    if len(pred) > len(gold) - len(dele):
        return (tuple(sub), tuple(dele), tuple([k for k in pred if k not in gold]), gold_domains)
    return (tuple(sub), tuple(dele), (), gold_domains)


def count(reference: Reference, prediction: Prediction) -> Counts:
    """Compare normalised states turn by turn and collect every count the metrics need."""
    facts = reference.facts
    pred_states = prediction.states
    # Turns that are right count once for each of their gold domains, and wrong turns once for
    # their errors: listing the domain sets and error lists per turn, counting the distinct
    # ones and expanding them at the end keeps the per-turn work small.
    right: list[frozenset[str]] = []
    wrong: list[_TurnErrors] = []
    dialogues = []
    for key, gold_turns, pred_turns, gold_domains, n_ref in zip(
        reference.ids, facts.states, pred_states, facts.domains, facts.n_ref, strict=True
    ):
        d_correct = d_sub = d_del = d_ins = 0
        marks = []
        last_gold: State | None = None
        last_pred: State | None = None
        outcome: _TurnErrors | None = None
        for gold, pred, domains in zip(gold_turns, pred_turns, gold_domains, strict=True):
            if gold == pred:
                d_correct += 1
                marks.append("1")
                right.append(domains)
                continue
            marks.append("0")
            # Cumulative states repeat; the same pair of states has the same errors.
            if gold is not last_gold or pred is not last_pred or outcome is None:
                outcome = _turn_errors(gold, pred, domains)
                last_gold, last_pred = gold, pred
            d_sub += len(outcome[0])
            d_del += len(outcome[1])
            d_ins += len(outcome[2])
            wrong.append(outcome)
        dialogues.append(
            DialogueStats(
                key, len(gold_turns), d_correct, n_ref, d_sub, d_del, d_ins, "".join(marks)
            )
        )
    right_domains = Counter(right)
    wrong_turns = Counter(wrong)
    slot_sub: Counter[str] = Counter()
    slot_del: Counter[str] = Counter()
    slot_ins: Counter[str] = Counter()
    dom_turns: Counter[str] = Counter()
    dom_wrong: Counter[str] = Counter()
    for domains, times in right_domains.items():
        for domain in domains:
            dom_turns[domain] += times
    for (subs, deletions, insertions, named), times in wrong_turns.items():
        # A domain is scored in a turn when the gold or the predicted state names it, and is
        # wrong there when one of its slots is.
        broken = {k.partition("-")[0] for keys in (subs, deletions, insertions) for k in keys}
        present = named.union([k.partition("-")[0] for k in insertions])
        slots: tuple[tuple[Counter[str], Iterable[str]], ...] = (
            (slot_sub, subs),
            (slot_del, deletions),
            (slot_ins, insertions),
            (dom_turns, present),
            (dom_wrong, broken),
        )
        for counter, keys in slots:
            for k in keys:
                counter[k] += times
    total_turns = sum(d.turns for d in dialogues)
    per_slot = {}
    for k in sorted(set(facts.slot_ref) | set(slot_ins)):
        ref, sub, dele, ins = facts.slot_ref.get(k, 0), slot_sub[k], slot_del[k], slot_ins[k]
        correct = ref - sub - dele
        per_slot[k] = {
            "n_ref": ref,
            "n_pred": correct + sub + ins,
            "correct": correct,
            "sub": sub,
            "del": dele,
            "ins": ins,
            "accuracy": 100.0 * (1 - (sub + dele + ins) / total_turns) if total_turns else 0.0,
        }
    per_domain = {
        d: {"turns": n, "correct": n - dom_wrong[d], "jga": 100.0 * (n - dom_wrong[d]) / n}
        for d, n in sorted(dom_turns.items())
    }
    return Counts(
        turns=total_turns,
        correct=sum(d.correct for d in dialogues),
        n_ref=sum(facts.n_ref),
        sub=sum(d.sub for d in dialogues),
        dele=sum(d.dele for d in dialogues),
        ins=sum(d.ins for d in dialogues),
        per_slot=per_slot,
        per_domain=per_domain,
        dialogues=tuple(dialogues),
        out_of_ontology={k: n for k, n in sorted(slot_ins.items()) if k not in facts.slot_ref},
    )
