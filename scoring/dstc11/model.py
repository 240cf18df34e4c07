"""References and predictions of the ``dstc11`` task: reading, checking, aligning."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import NamedTuple

from scoring.dstc11.states import State, normalise_dialogues
from scoring.errors import InvalidFile, ScoringError, listing
from scoring.formats import ParsedFile, RawTurn, read_file

MISSING_POLICIES = ("reject", "empty")


class _Domains(dict[str, str]):
    """Slot key -> its domain (``hotel-area`` -> ``hotel``), worked out once per key."""

    def __missing__(self, key: str) -> str:
        domain = self[key] = key.partition("-")[0]
        return domain


class GoldFacts(NamedTuple):
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
    #: False for a copy made by :meth:`compact`, which keeps the facts of one profile only.
    complete: bool = field(default=True, compare=False)

    @property
    def sha256(self) -> str:
        return self.parsed.sha256

    def compact(self, profile: str) -> Reference:
        """A copy that keeps what scoring under ``profile`` needs and drops the raw states.

        Raw turns become shared empty placeholders (their count is all alignment uses), so
        the copy is small to send to another process; asking it for another profile's facts
        is a programming error.
        """
        facts = self.facts(profile)
        parsed = self.parsed
        blank: RawTurn = {}
        placeholders = {key: (blank,) * len(turns) for key, turns in parsed.dialogues.items()}
        light = replace(parsed, dialogues=placeholders)
        return Reference(light, {profile: facts}, complete=False)

    def renamed(self, name: str) -> Reference:
        """The same reference under another file name (a cached one, read under another)."""
        if name == self.parsed.name:
            return self
        return replace(self, parsed=replace(self.parsed, name=name))

    @property
    def ids(self) -> tuple[str, ...]:
        """Dialogue ids as written in the file, in file order."""
        return tuple(self.parsed.original_ids.values())

    def facts(self, profile: str) -> GoldFacts:
        """Normalised gold states and their counts, computed once per profile."""
        cached = self._facts.get(profile)
        if cached is None:
            if not self.complete:
                raise RuntimeError(f"this compact reference has no facts for {profile!r}")
            parsed = self.parsed
            states = normalise_dialogues(parsed.name, self.ids, parsed.dialogues.values(), profile)
            # Repeated turns share one state object: describe each object once.
            described: dict[int, frozenset[str]] = {}
            domain_of = _Domains().__getitem__
            domains = []
            for turns in states:
                row = []
                for state in turns:
                    found = described.get(id(state))
                    if found is None:
                        found = described[id(state)] = frozenset(map(domain_of, state))
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


class ReferenceSummary(NamedTuple):
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
