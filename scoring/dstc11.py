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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, NamedTuple

from scoring.errors import InvalidFile, ScoringError, listing
from scoring.formats import ParsedFile, RawTurn, describe, paused_gc, quote, read_file
from scoring.normalise import slot_key, split_key, value_normaliser

MISSING_POLICIES = ("reject", "empty")

State = dict[str, str]


@dataclass(frozen=True)
class GoldFacts:
    """What scoring needs from a reference under one profile, computed once and reused."""

    states: tuple[tuple[State, ...], ...]
    #: per dialogue, per turn: the domains of the gold state.
    domains: tuple[tuple[frozenset[str], ...], ...]
    #: per dialogue: the number of gold slot values.
    n_ref: tuple[int, ...]
    #: slot key -> number of gold values over all turns.
    slot_ref: Mapping[str, int]

    @property
    def ontology(self) -> frozenset[str]:
        return frozenset(self.slot_ref)


@dataclass(frozen=True)
class Reference:
    """A gold file, read and checked, with its normalised states cached per profile."""

    parsed: ParsedFile
    _facts: dict[str, GoldFacts] = field(default_factory=dict, repr=False, compare=False)

    @property
    def sha256(self) -> str:
        return self.parsed.sha256

    @property
    def ids(self) -> tuple[str, ...]:
        """Dialogue ids as written in the file, in file order."""
        return tuple(self.parsed.original_ids.values())

    def facts(self, profile: str) -> GoldFacts:
        """Normalised gold states and their counts, computed once per profile."""
        cached = self._facts.get(profile)
        if cached is None:
            parsed = self.parsed
            states = normalise_dialogues(parsed.name, self.ids, parsed.dialogues.values(), profile)
            # Repeated turns share one state object: describe each object once.
            described: dict[int, frozenset[str]] = {}
            domains = []
            for turns in states:
                row = []
                for state in turns:
                    found = described.get(id(state))
                    if found is None:
                        found = frozenset(k.partition("-")[0] for k in state)
                        described[id(state)] = found
                    row.append(found)
                domains.append(tuple(row))
            cached = GoldFacts(
                states=states,
                domains=tuple(domains),
                n_ref=tuple(sum(map(len, turns)) for turns in states),
                slot_ref=dict(Counter(chain.from_iterable(chain.from_iterable(states)))),
            )
            self._facts[profile] = cached
        return cached

    def summary(self) -> ReferenceSummary:
        facts = self.facts("default")
        return ReferenceSummary(
            dialogues=len(facts.states),
            turns=sum(len(turns) for turns in facts.states),
            slot_values=sum(facts.n_ref),
            slots=tuple(sorted(facts.slot_ref)),
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
    #: per reference dialogue, its id as the prediction writes it (for messages).
    ids: tuple[str, ...] = ()
    _states: dict[str, tuple[tuple[State, ...], ...]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def states(self, profile: str) -> tuple[tuple[State, ...], ...]:
        """Normalised predicted states aligned with the reference, computed once per profile."""
        cached = self._states.get(profile)
        if cached is None:
            cached = normalise_dialogues(self.parsed.name, self.ids, self.aligned, profile)
            self._states[profile] = cached
        return cached


def load_reference(data: bytes, name: str = "reference") -> Reference:
    """Read a gold file. Raises :class:`InvalidFile` when it is malformed."""
    parsed = read_file(data, name)
    if not parsed.dialogues:
        raise InvalidFile(f"{name}: the reference contains no dialogues.")
    reference = Reference(parsed)
    reference.facts("default")  # checks every value and slot name now, not at scoring time
    return reference


def load_prediction(
    data: bytes,
    reference: Reference,
    name: str = "prediction",
    missing: str = "reject",
    profile: str = "default",
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
            f"{name}: {len(unknown)} dialogue id(s) are not in the reference: {listing(unknown)}.",
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
        raise InvalidFile(
            f"{name}: " + "; ".join(problems[:20]) + _more(problems), problems=problems
        )
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
    prediction = Prediction(
        parsed, tuple(aligned), len(missing_ids), missing_turns, missing,
        tuple(parsed.original_ids.get(k, gold.original_ids[k]) for k in gold.dialogues),
    )  # fmt: skip
    prediction.states(profile)  # checks every value and slot name now, not at scoring time
    return prediction


def _more(items: Sequence[str], shown: int = 20) -> str:
    return f" (and {len(items) - shown} more)" if len(items) > shown else ""


def normalise_dialogues(
    name: str, ids: Sequence[str], dialogues: Iterable[Sequence[RawTurn]], profile: str
) -> tuple[tuple[State, ...], ...]:
    """Check and normalise the raw states of many dialogues; ``ids`` name them in messages.

    States are cumulative, so the same domain object recurs turn after turn: results are
    memoised per (domain, slot items), and a value is checked only the first time it is seen.
    """
    with paused_gc():
        return _normalise_dialogues(name, ids, dialogues, profile)


def _normalise_dialogues(
    name: str, ids: Sequence[str], dialogues: Iterable[Sequence[RawTurn]], profile: str
) -> tuple[tuple[State, ...], ...]:
    normalise = value_normaliser(profile)
    memo: dict[tuple[str, tuple[tuple[str, Any], ...]], tuple[tuple[str, str], ...]] = {}
    slot_memo: dict[tuple[str, str, str], tuple[str, str | None]] = {}
    result = []
    for raw_id, turns in zip(ids, dialogues, strict=True):
        states: list[State] = []
        previous: Any = None
        for index, raw in enumerate(turns):
            # A state often repeats the previous turn's: share its normalised form.
            if raw == previous and states:
                states.append(states[-1])
                continue
            previous = raw
            state: State = {}
            size = 0
            try:
                for domain, slots in raw.items():
                    items = tuple(slots.items())
                    hit = memo.get((domain, items))
                    if hit is None:
                        hit = _normalise_domain(domain, items, normalise, slot_memo)
                        memo[(domain, items)] = hit
                    size += len(items)
                    state.update(hit)
            except (AttributeError, TypeError, _BadValue):
                _explain(name, raw_id, index, raw)
                raise  # _explain always raises; this keeps type checkers informed
            if size > len(state):
                _check_unique_keys(name, raw_id, index, raw)
            states.append(state)
        result.append(tuple(states))
    return tuple(result)


class _BadValue(Exception):
    pass


def _normalise_domain(
    domain: str,
    items: tuple[tuple[str, Any], ...],
    normalise: Callable[[str, str], str | None],
    slot_memo: dict[tuple[str, str, str], tuple[str, str | None]],
) -> tuple[tuple[str, str], ...]:
    out = []
    for slot, value in items:
        hit = slot_memo.get((domain, slot, value))
        if hit is None:
            if type(value) is not str:
                raise _BadValue
            key = slot_key(domain, slot)
            hit = (key, normalise(split_key(key)[1], value))
            slot_memo[(domain, slot, value)] = hit
        if hit[1] is not None:
            out.append(hit)
    return tuple(out)  # type: ignore[arg-type]


def _explain(name: str, raw_id: str, index: int, state: Any) -> None:
    """Raise the participant-facing error for a malformed state (the slow path)."""
    where = f"{name}: dialogue {raw_id!r}, turn {index}"
    if not isinstance(state, dict):
        raise InvalidFile(
            f"{where}: expected a state object {{domain: {{slot: value}}}}, found "
            f"{describe(state)}."
        )
    for domain, slots in state.items():
        if not isinstance(slots, dict):
            raise InvalidFile(
                f"{where}: domain {quote(domain)}: expected an object of slot values, found "
                f"{describe(slots)}."
            )
        for slot, value in slots.items():
            if not isinstance(value, str):
                raise InvalidFile(
                    f"{where}: slot {quote(domain + '-' + slot)}: the value must be a string, "
                    f"found {describe(value)}."
                )
    raise InvalidFile(f"{where}: the state cannot be read.")


def _check_unique_keys(name: str, raw_id: str, index: int, raw: RawTurn) -> None:
    """Reject a state naming one slot twice, e.g. ``bookday`` and ``day`` (only called when
    a state has fewer normalised than raw slots, which absent values also cause)."""
    seen: dict[str, str] = {}
    for domain, slots in raw.items():
        for slot in slots:
            key = slot_key(domain, slot)
            if key in seen:
                raise InvalidFile(
                    f"{name}: dialogue {raw_id!r}, turn {index}: slot {key!r} is given twice "
                    f"(as {seen[key]!r} and {domain + '-' + slot!r}); give it once."
                )
            seen[key] = f"{domain}-{slot}"


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


class _TurnErrors(NamedTuple):
    """The errors of one wrong turn (a plain tuple: thousands are made per file)."""

    sub: tuple[str, ...]
    dele: tuple[str, ...]
    ins: tuple[str, ...]
    domains: frozenset[str]
    wrong: frozenset[str]


def _turn_errors(gold: State, pred: State, gold_domains: frozenset[str]) -> _TurnErrors:
    sub: list[str] = []
    dele: list[str] = []
    for k, v in gold.items():
        p = pred.get(k)
        if p != v:
            (dele if p is None else sub).append(k)
    # Every predicted key is a gold key or an insertion, so the insertions can be counted
    # before they are looked for, and the predicted domains follow from them.
    ins: tuple[str, ...] = ()
    domains = gold_domains
    if len(pred) > len(gold) - len(dele):
        ins = tuple(k for k in pred if k not in gold)
        domains = gold_domains | {k.partition("-")[0] for k in ins}
    return _TurnErrors(
        tuple(sub),
        tuple(dele),
        ins,
        domains,
        frozenset(k.partition("-")[0] for k in (*sub, *dele, *ins)),
    )


def count(reference: Reference, prediction: Prediction, profile: str) -> Counts:
    """Compare normalised states turn by turn and collect every count the metrics need."""
    facts = reference.facts(profile)
    pred_states = prediction.states(profile)
    # Turns that are right count once for each of their gold domains, and wrong turns once for
    # their errors: counting the distinct domain sets and error lists, then expanding them at
    # the end, keeps the per-turn work to one dictionary update.
    right_domains: Counter[frozenset[str]] = Counter()
    wrong_turns: Counter[_TurnErrors] = Counter()
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
                right_domains[domains] += 1
                continue
            marks.append("0")
            # Cumulative states repeat; the same pair of states has the same errors.
            if gold is not last_gold or pred is not last_pred or outcome is None:
                outcome = _turn_errors(gold, pred, domains)
                last_gold, last_pred = gold, pred
            d_sub += len(outcome.sub)
            d_del += len(outcome.dele)
            d_ins += len(outcome.ins)
            wrong_turns[outcome] += 1
        dialogues.append(
            DialogueStats(
                key, len(gold_turns), d_correct, n_ref, d_sub, d_del, d_ins, "".join(marks)
            )
        )
    slot_sub: Counter[str] = Counter()
    slot_del: Counter[str] = Counter()
    slot_ins: Counter[str] = Counter()
    dom_turns: Counter[str] = Counter()
    dom_wrong: Counter[str] = Counter()
    for domains, times in right_domains.items():
        for domain in domains:
            dom_turns[domain] += times
    for outcome, times in wrong_turns.items():
        for counter, keys in (
            (slot_sub, outcome.sub),
            (slot_del, outcome.dele),
            (slot_ins, outcome.ins),
            (dom_turns, outcome.domains),
            (dom_wrong, outcome.wrong),
        ):
            for k in keys:
                counter[k] += times
    total_turns = sum(d.turns for d in dialogues)
    per_slot = {}
    for k in sorted(set(facts.slot_ref) | set(slot_ins)):
        ref, sub, dele, ins = facts.slot_ref.get(k, 0), slot_sub[k], slot_del[k], slot_ins[k]
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
