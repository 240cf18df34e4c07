"""The ``dstc11`` task: Joint Goal Accuracy, Slot Error Rate and their breakdowns.

Definitions (DESIGN.md, "Scoring rules"): one cumulative state per user turn; a turn is correct
when the normalised predicted state equals the normalised gold state; per turn,
S = slots in both with different values, D = gold-only slots, I = predicted-only slots, and
SER = (S + D + I) / N_ref over all turns.

Per-domain JGA is computed over the turns in which the domain appears in the gold or the
predicted state: such a turn counts as correct for the domain when the slots of that domain
agree exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from scoring.errors import InvalidFile, ScoringError, listing
from scoring.formats import ParsedFile, RawTurn, read_file
from scoring.normalise import split_key, slot_key, value_normaliser

MISSING_POLICIES = ("reject", "empty")

State = dict[str, str]


@dataclass(frozen=True)
class Reference:
    """A gold file, read and checked, with its normalised states cached per profile."""

    parsed: ParsedFile
    _states: dict[str, tuple[tuple[State, ...], ...]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @property
    def sha256(self) -> str:
        return self.parsed.sha256

    @property
    def dialogue_ids(self) -> tuple[str, ...]:
        return tuple(self.parsed.dialogues)

    def turn_counts(self) -> dict[str, int]:
        return {key: len(turns) for key, turns in self.parsed.dialogues.items()}

    def states(self, profile: str) -> tuple[tuple[State, ...], ...]:
        """Normalised gold states, per dialogue in file order, computed once per profile."""
        cached = self._states.get(profile)
        if cached is None:
            parsed = self.parsed
            cached = normalise_dialogues(
                parsed.name, tuple(parsed.original_ids.values()), parsed.dialogues.values(), profile
            )
            self._states[profile] = cached
        return cached

    def ontology(self, profile: str = "default") -> frozenset[str]:
        """The slot keys the gold uses anywhere."""
        return frozenset(key for turns in self.states(profile) for s in turns for key in s)

    def summary(self) -> ReferenceSummary:
        states = self.states("default")
        slots = Counter(key for turns in states for s in turns for key in s)
        return ReferenceSummary(
            dialogues=len(states),
            turns=sum(len(turns) for turns in states),
            slot_values=sum(slots.values()),
            slots=tuple(sorted(slots)),
            sha256=self.sha256,
            format=self.parsed.format,
        )


@dataclass(frozen=True)
class ReferenceSummary:
    dialogues: int
    turns: int
    slot_values: int
    slots: tuple[str, ...]
    sha256: str
    format: str


@dataclass(frozen=True)
class Prediction:
    """A prediction file read and aligned with a reference's dialogues."""

    parsed: ParsedFile
    #: raw states per reference dialogue, in reference order (missing turns filled as empty).
    aligned: tuple[tuple[RawTurn, ...], ...]
    missing_dialogues: int
    missing_turns: int
    missing_policy: str


def load_reference(data: bytes, name: str = "reference") -> Reference:
    """Read a gold file. Raises :class:`InvalidFile` when it is malformed."""
    parsed = read_file(data, name)
    if not parsed.dialogues:
        raise InvalidFile(f"{name}: the reference contains no dialogues.")
    reference = Reference(parsed)
    reference.states("default")  # surfaces conflicting slots now, not at scoring time
    return reference


def load_prediction(
    data: bytes, reference: Reference, name: str = "prediction", missing: str = "reject"
) -> Prediction:
    """Read a prediction file and check it against the reference's dialogue ids and turn counts.

    With ``missing="reject"`` (the default) missing dialogues or turns make the file invalid;
    with ``missing="empty"`` they are scored as empty states. Unknown dialogues and extra turns
    are always invalid.
    """
    if missing not in MISSING_POLICIES:
        raise ScoringError(
            f"unknown missing-turn policy {missing!r}; choose one of: "
            + ", ".join(MISSING_POLICIES)
        )
    parsed = read_file(data, name)
    gold = reference.parsed
    unknown = [parsed.original_ids[k] for k in parsed.dialogues if k not in gold.dialogues]
    if unknown:
        raise InvalidFile(
            f"{name}: {len(unknown)} dialogue id(s) are not in the reference: "
            f"{listing(unknown)}.",
            problems=unknown,
        )
    problems: list[str] = []
    missing_ids = [gold.original_ids[k] for k in gold.dialogues if k not in parsed.dialogues]
    short: list[str] = []
    missing_turns = 0
    aligned: list[tuple[RawTurn, ...]] = []
    for key, gold_turns in gold.dialogues.items():
        turns = parsed.dialogues.get(key)
        if turns is None:
            missing_turns += len(gold_turns)
            aligned.append(({},) * len(gold_turns))
            continue
        if len(turns) > len(gold_turns):
            problems.append(
                f"dialogue {parsed.original_ids[key]!r} has {len(turns)} user turns, the "
                f"reference has {len(gold_turns)} (turn {len(gold_turns)} onwards is extra)"
            )
        elif len(turns) < len(gold_turns):
            short.append(
                f"dialogue {parsed.original_ids[key]!r} has {len(turns)} user turns, the "
                f"reference has {len(gold_turns)} (turns {len(turns)} to {len(gold_turns) - 1} "
                "are missing)"
            )
            missing_turns += len(gold_turns) - len(turns)
            turns = turns + ({},) * (len(gold_turns) - len(turns))
        aligned.append(turns)
    if problems:
        raise InvalidFile(f"{name}: " + "; ".join(problems[:20]) + _more(problems), problems=problems)
    if missing == "reject" and (missing_ids or short):
        parts = []
        if missing_ids:
            parts.append(
                f"{len(missing_ids)} dialogue(s) of the reference are missing: "
                f"{listing(missing_ids, 100)}"
            )
        if short:
            parts.append("; ".join(short[:20]) + _more(short))
        raise InvalidFile(f"{name}: " + "; ".join(parts) + ".", problems=missing_ids + short)
    return Prediction(parsed, tuple(aligned), len(missing_ids), missing_turns, missing)


def _more(items: Sequence[str], shown: int = 20) -> str:
    return f" (and {len(items) - shown} more)" if len(items) > shown else ""


def normalise_dialogues(
    name: str, ids: Sequence[str], dialogues: Iterable[Sequence[RawTurn]], profile: str
) -> tuple[tuple[State, ...], ...]:
    """Normalise raw states of many dialogues; ``ids`` name them in messages."""
    normalise = value_normaliser(profile)
    # (domain, slot, raw value) -> (key, normalised value or None); files repeat pairs a lot.
    memo: dict[tuple[str, str, str], tuple[str, str | None]] = {}
    result = []
    for raw_id, turns in zip(ids, dialogues, strict=True):
        states = []
        for index, raw in enumerate(turns):
            state: State = {}
            for domain, slots in raw.items():
                for slot, value in slots.items():
                    hit = memo.get((domain, slot, value))
                    if hit is None:
                        key = slot_key(domain, slot)
                        hit = (key, normalise(split_key(key)[1], value))
                        memo[(domain, slot, value)] = hit
                    key, normal = hit
                    if normal is None:
                        continue
                    if key in state and state[key] != normal:
                        raise InvalidFile(
                            f"{name}: dialogue {raw_id!r}, turn {index}: slot {key!r} "
                            f"is given twice with different values ({state[key]!r} and "
                            f"{normal!r}), for example as 'bookday' and 'day'."
                        )
                    state[key] = normal
            states.append(state)
        result.append(tuple(states))
    return tuple(result)


@dataclass(frozen=True)
class SlotStats:
    """Counts for one slot over all turns."""

    n_ref: int
    n_pred: int
    correct: int
    sub: int
    dele: int
    ins: int
    accuracy: float

    def as_dict(self) -> dict[str, float]:
        return {
            "n_ref": self.n_ref,
            "n_pred": self.n_pred,
            "correct": self.correct,
            "sub": self.sub,
            "del": self.dele,
            "ins": self.ins,
            "accuracy": self.accuracy,
        }


@dataclass(frozen=True)
class DomainStats:
    turns: int
    correct: int
    jga: float


@dataclass(frozen=True)
class DialogueStats:
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


@dataclass(frozen=True)
class Counts:
    """Everything measured on one prediction against one reference, before statistics."""

    turns: int
    correct: int
    n_ref: int
    sub: int
    dele: int
    ins: int
    per_slot: Mapping[str, SlotStats]
    per_domain: Mapping[str, DomainStats]
    dialogues: tuple[DialogueStats, ...]
    out_of_ontology: Mapping[str, int]

    def arrays(self) -> dict[str, np.ndarray]:  # type: ignore[type-arg]
        d = self.dialogues
        return {
            "turns": np.array([x.turns for x in d], dtype=np.float64),
            "correct": np.array([x.correct for x in d], dtype=np.float64),
            "n_ref": np.array([x.n_ref for x in d], dtype=np.float64),
            "errors": np.array([x.sub + x.dele + x.ins for x in d], dtype=np.float64),
        }


def count(reference: Reference, prediction: Prediction, profile: str) -> Counts:
    """Compare normalised states turn by turn and collect every count the metrics need."""
    gold_states = reference.states(profile)
    ids = tuple(reference.parsed.original_ids.values())
    pred_states = normalise_dialogues(prediction.parsed.name, ids, prediction.aligned, profile)
    ontology = reference.ontology(profile)
    slot_ref: Counter[str] = Counter()
    slot_sub: Counter[str] = Counter()
    slot_del: Counter[str] = Counter()
    slot_ins: Counter[str] = Counter()
    dom_turns: Counter[str] = Counter()
    dom_wrong: Counter[str] = Counter()
    dialogues = []
    total_turns = total_correct = total_ref = total_sub = total_del = total_ins = 0
    for key, gold_turns, pred_turns in zip(ids, gold_states, pred_states, strict=True):
        d_correct = d_ref = d_sub = d_del = d_ins = 0
        marks = []
        for gold, pred in zip(gold_turns, pred_turns, strict=True):
            slot_ref.update(gold.keys())
            d_ref += len(gold)
            if gold == pred:
                d_correct += 1
                marks.append("1")
                dom_turns.update({k.partition("-")[0] for k in gold})
                continue
            marks.append("0")
            wrong_domains = set()
            for k, v in gold.items():
                p = pred.get(k)
                if p is None:
                    d_del += 1
                    slot_del[k] += 1
                    wrong_domains.add(k.partition("-")[0])
                elif p != v:
                    d_sub += 1
                    slot_sub[k] += 1
                    wrong_domains.add(k.partition("-")[0])
            for k in pred:
                if k not in gold:
                    d_ins += 1
                    slot_ins[k] += 1
                    wrong_domains.add(k.partition("-")[0])
            domains = {k.partition("-")[0] for k in gold} | {k.partition("-")[0] for k in pred}
            dom_turns.update(domains)
            dom_wrong.update(wrong_domains)
        n_turns = len(gold_turns)
        dialogues.append(
            DialogueStats(key, n_turns, d_correct, d_ref, d_sub, d_del, d_ins, "".join(marks))
        )
        total_turns += n_turns
        total_correct += d_correct
        total_ref += d_ref
        total_sub += d_sub
        total_del += d_del
        total_ins += d_ins
    per_slot = {}
    for k in sorted(set(slot_ref) | set(slot_ins)):
        ref, sub, dele, ins = slot_ref[k], slot_sub[k], slot_del[k], slot_ins[k]
        correct = ref - sub - dele
        per_slot[k] = SlotStats(
            n_ref=ref,
            n_pred=correct + sub + ins,
            correct=correct,
            sub=sub,
            dele=dele,
            ins=ins,
            accuracy=100.0 * (1 - (sub + dele + ins) / total_turns) if total_turns else 0.0,
        )
    per_domain = {
        d: DomainStats(n, n - dom_wrong[d], 100.0 * (n - dom_wrong[d]) / n)
        for d, n in sorted(dom_turns.items())
    }
    unknown = {k: slot_ins[k] for k in sorted(slot_ins) if k not in ontology}
    return Counts(
        turns=total_turns,
        correct=total_correct,
        n_ref=total_ref,
        sub=total_sub,
        dele=total_del,
        ins=total_ins,
        per_slot=per_slot,
        per_domain=per_domain,
        dialogues=tuple(dialogues),
        out_of_ontology=unknown,
    )
