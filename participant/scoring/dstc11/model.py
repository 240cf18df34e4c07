"""References and predictions of the ``dstc11`` task: reading, checking, aligning."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any, NamedTuple

from scoring.align import align
from scoring.dstc11.states import State, normalise_dialogues
from scoring.errors import InvalidFile
from scoring.formats import Budget, ParsedFile, budget, quote, read_file
from scoring.normalise import slot_key, value_normaliser
from scoring.seen import TrainingValues, read_training_values
from scoring.taskapi import Options, Source


class GoldFacts(NamedTuple):
    """What scoring needs from a reference under its profile, computed once."""

    states: tuple[tuple[State, ...], ...]
    #: per dialogue, per turn: the domains of the gold state.
    domains: tuple[tuple[frozenset[str], ...], ...]
    #: per dialogue: the number of gold slot values.
    n_ref: tuple[int, ...]
    #: slot key -> number of gold values over all turns.
    slot_ref: Mapping[str, int]


@dataclass(frozen=True)
class Reference:
    """A gold file, read, checked and normalised under the challenge's profile, and
    optionally the slot values seen in training."""

    parsed: ParsedFile
    facts: GoldFacts
    training: TrainingValues | None = None
    #: the most a prediction for it can hold (see :class:`scoring.formats.Budget`)
    limit: Budget | None = None

    @property
    def sha256(self) -> str:
        return self.parsed.sha256

    @property
    def ids(self) -> tuple[str, ...]:
        """Dialogue ids as written in the file, in file order."""
        return tuple(self.parsed.original_ids.values())

    def layout(self) -> tuple[tuple[str, int], ...]:
        """Each dialogue's id as written and its number of user turns (for a sample file)."""
        return tuple(zip(self.ids, map(len, self.facts.states), strict=True))

    def summary(self) -> dict[str, Any]:
        """Counts shown to organisers."""
        return {
            "dialogues": len(self.facts.states),
            "turns": sum(map(len, self.facts.states)),
            "slot_values": sum(self.facts.n_ref),
            "slots": sorted(self.facts.slot_ref),
            "format": self.parsed.format,
        }


@dataclass(frozen=True)
class Prediction:
    """A prediction file read, aligned with a reference's dialogues and normalised."""

    format: str
    #: normalised states per reference dialogue, in reference order (missing turns empty).
    states: tuple[tuple[State, ...], ...]
    missing_dialogues: int
    missing_turns: int


def _gold_facts(parsed: ParsedFile, profile: str) -> GoldFacts:
    ids = tuple(parsed.original_ids.values())
    states = normalise_dialogues(parsed.name, ids, parsed.dialogues.values(), profile)
    slot_ref = Counter(chain.from_iterable(chain.from_iterable(states)))
    # Repeated turns share one state object: describe each object once, and each slot key's
    # domain once.
    domain_of = {key: key.partition("-")[0] for key in slot_ref}
    described: dict[int, frozenset[str]] = {}
    domains = []
    for turns in states:
        row = []
        for state in turns:
            found = described.get(id(state))
            if found is None:
                found = described[id(state)] = frozenset(map(domain_of.__getitem__, state))
            row.append(found)
        domains.append(tuple(row))
    return GoldFacts(
        states=states,
        domains=tuple(domains),
        n_ref=tuple(sum(map(len, turns)) for turns in states),
        slot_ref=dict(slot_ref),
    )


def _split_key(text: str) -> str:
    domain, _, slot = text.partition("-")
    return slot_key(domain, slot)


def load_reference(gold: Source, files: Mapping[str, Source], options: Options) -> Reference:
    """Read a gold file (and a training-values file). Raises :class:`InvalidFile`."""
    parsed = read_file(gold.data, gold.name)
    if not parsed.dialogues:
        raise InvalidFile(f"{gold.name}: the reference contains no dialogues.")
    training = files.get("training_values")
    values = None
    if training is not None:
        normalise = value_normaliser(options["profile"])
        values = read_training_values(training.data, training.name, _split_key, normalise)
    facts = _gold_facts(parsed, options["profile"])
    # A state may name every domain and slot of the reference (and wrong ones), in any format.
    names = len(facts.slot_ref) + len({k.partition("-")[0] for k in facts.slot_ref})
    turns = sum(map(len, facts.states))
    limit = budget(gold.data, len(facts.states), turns, 16 + 4 * names)
    return Reference(parsed, facts, values, limit)


#: Slot keys outside the reference's ontology a prediction may name (each is scored as
#: insertions and listed in the breakdown), and the longest such key.
MAX_UNKNOWN_SLOTS = 100
MAX_NAME_CHARS = 100


def _check_unknown_slots(name: str, states: tuple[tuple[State, ...], ...], known: Any) -> None:
    """Refuse more, or longer, slot names outside the ontology than a prediction can mean:
    they are stored with its results and shown on its page."""
    unknown: set[str] = set()
    seen: set[int] = set()
    for turns in states:
        for state in turns:
            if id(state) not in seen:  # repeated turns share one state object
                seen.add(id(state))
                unknown.update(k for k in state if k not in known)
    long = [k for k in unknown if len(k) > MAX_NAME_CHARS]
    if long:
        raise InvalidFile(
            f"{name}: the slot name {quote(long[0])} is {len(long[0]):,} characters long; "
            f"a slot name has at most {MAX_NAME_CHARS}."
        )
    if len(unknown) > MAX_UNKNOWN_SLOTS:
        shown = ", ".join(quote(k, 30) for k in sorted(unknown)[:5])
        raise InvalidFile(
            f"{name}: the file names {len(unknown):,} slots that are not in the reference "
            f"(e.g. {shown}); at most {MAX_UNKNOWN_SLOTS} are accepted."
        )


def _refuse_token_sequences(parsed: ParsedFile) -> None:
    """A file of string states is another task's (DVD-DST's token sequences): say so before
    its dialogue ids are compared with the reference's, which would only say they differ."""
    for raw_id, turns in zip(parsed.original_ids.values(), parsed.dialogues.values(), strict=True):
        if turns and isinstance(turns[0], str):
            raise InvalidFile(
                f"{parsed.name}: dialogue {quote(raw_id)}, turn 1: the state is a string, as in "
                "a DVD-DST file (token sequences such as '<obj1> SIZE large'); this challenge "
                "scores dstc11 states, {domain: {slot: value}} for each user turn."
            )


def load_prediction(source: Source, reference: Reference, options: Options) -> Prediction:
    """Read a prediction file and check it against the reference's dialogue ids and turn
    counts (see :func:`scoring.align.align`), then check and normalise every state."""
    parsed = read_file(source.data, source.name, reference.limit)
    _refuse_token_sequences(parsed)
    gold = reference.parsed
    aligned = align(
        source.name,
        gold.dialogues,
        gold.original_ids,
        parsed.dialogues,
        parsed.original_ids,
        options["missing"],
        {},
    )
    shown = tuple(parsed.original_ids.get(k, gold.original_ids[k]) for k in gold.dialogues)
    states = normalise_dialogues(source.name, shown, aligned.turns, options["profile"])
    _check_unknown_slots(source.name, states, reference.facts.slot_ref)
    return Prediction(parsed.format, states, aligned.missing_dialogues, aligned.missing_turns)


def write_sample(layout: tuple[tuple[str, int], ...]) -> bytes:
    """``gold-json`` with an empty state ``{}`` for every user turn."""
    return _json_lines({dialogue_id: [{}] * turns for dialogue_id, turns in layout})


def _json_lines(document: Mapping[str, Any]) -> bytes:
    """One dialogue per line: small to download, easy to read and to fill in."""
    rows = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in document.items()]
    return ("{\n" + ",\n".join(rows) + "\n}\n").encode()


def check_file(source: Source, options: Options) -> str:
    """Check a prediction without the reference: format, state shapes, values; its format."""
    parsed = read_file(source.data, source.name)
    ids = tuple(parsed.original_ids.values())
    normalise_dialogues(parsed.name, ids, parsed.dialogues.values(), options["profile"])
    return parsed.format
