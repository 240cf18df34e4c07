"""References and predictions of the ``dstc11`` task: reading, checking, aligning."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any, NamedTuple

from scoring.align import align
from scoring.dstc11.states import State, normalise_dialogues
from scoring.errors import InvalidFile
from scoring.formats import ParsedFile, read_file
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

    @property
    def sha256(self) -> str:
        return self.parsed.sha256

    @property
    def ids(self) -> tuple[str, ...]:
        """Dialogue ids as written in the file, in file order."""
        return tuple(self.parsed.original_ids.values())

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
    return Reference(parsed, _gold_facts(parsed, options["profile"]), values)


def load_prediction(source: Source, reference: Reference, options: Options) -> Prediction:
    """Read a prediction file and check it against the reference's dialogue ids and turn
    counts (see :func:`scoring.align.align`), then check and normalise every state."""
    parsed = read_file(source.data, source.name)
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
    return Prediction(parsed.format, states, aligned.missing_dialogues, aligned.missing_turns)


def check_file(source: Source, options: Options) -> str:
    """Check a prediction without the reference: format, state shapes, values; its format."""
    parsed = read_file(source.data, source.name)
    ids = tuple(parsed.original_ids.values())
    normalise_dialogues(parsed.name, ids, parsed.dialogues.values(), options["profile"])
    return parsed.format
