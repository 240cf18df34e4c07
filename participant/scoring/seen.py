"""Seen/unseen breakdown: JGA over turns whose gold values were all seen in training, and over
turns with at least one unseen value (DSTC11 found models memorise training values).

The training values are a JSON file, either a list of strings, each ``slot=value`` (seen for
that slot) or a bare ``value`` (seen for every slot), or an object ``{slot: [values]}`` (a single
string stands for a one-value list). Slot names are written as the task's gold writes them
(``hotel-pricerange``; for ``dstc11`` any form its slot-key normalisation accepts, e.g.
``hotel-bookday``). Values are normalised by the task exactly as gold values are.

A gold slot is *seen* when one of its listed gold values is seen for that slot (or anywhere);
``dontcare`` is never unseen. A turn is seen when all its gold slots are, so a turn with an
empty gold state counts as seen. The overall JGA is the turn-weighted mean of the two, so it
always lies between them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.errors import InvalidFile
from scoring.formats import describe, load_json, quote
from scoring.taskapi import FileSpec, MetricSpec

DONTCARE = "dontcare"

SEEN_METRICS = (
    MetricSpec(
        "jga_seen",
        "JGA (seen)",
        optional=True,
        description="JGA over turns whose gold values were all seen in training.",
    ),
    MetricSpec(
        "jga_unseen",
        "JGA (unseen)",
        optional=True,
        description="JGA over turns with at least one gold value unseen in training.",
    ),
)
TRAINING_FILE = FileSpec(
    "training_values",
    "Training values",
    required=False,
    description="JSON list of 'slot=value' or 'value' strings, or {slot: [values]}.",
    # the values of the (published) training set: no test gold
    public=True,
)


@dataclass(frozen=True)
class TrainingValues:
    """Normalised training values: per slot, and values seen for any slot."""

    sha256: str
    by_slot: frozenset[tuple[str, str]]
    anywhere: frozenset[str]

    def seen(self, slot: str, values: Iterable[str]) -> bool:
        """Whether a gold slot with these (normalised) acceptable values counts as seen."""
        return any(v == DONTCARE or v in self.anywhere or (slot, v) in self.by_slot for v in values)


def read_training_values(
    data: bytes,
    name: str,
    slot_key: Callable[[str], str],
    normalise: Callable[[str, str], str | None],
) -> TrainingValues:
    """Read a training-values file; ``slot_key`` and ``normalise(slot, value)`` are the task's
    own normalisations (a ``normalise`` result of None drops the entry, as an absent value)."""
    document = load_json(data, name)
    entries: list[tuple[str | None, Any, str]] = []
    item_slot: str | None
    if isinstance(document, list):
        for index, item in enumerate(document):
            if not isinstance(item, str):
                raise InvalidFile(
                    f"{name}: item {index}: expected a string 'slot=value' or 'value', found "
                    f"{describe(item)}."
                )
            head, sep, value = item.partition("=")
            item_slot = head if sep else None
            entries.append((item_slot, value if sep else item, f"item {index}"))
    elif isinstance(document, dict):
        for slot, values in document.items():
            listed = [values] if isinstance(values, str) else values
            if not isinstance(listed, list):
                raise InvalidFile(
                    f"{name}: slot {quote(slot)}: expected a list of values, found "
                    f"{describe(values)}."
                )
            entries.extend(
                (slot, v, f"slot {quote(slot)}, value {i}") for i, v in enumerate(listed)
            )
    else:
        raise InvalidFile(
            f"{name}: expected a JSON list of 'slot=value' strings or an object of slot -> "
            f"values, found {describe(document)}."
        )
    by_slot: set[tuple[str, str]] = set()
    anywhere: set[str] = set()
    for slot, value, where in entries:
        if not isinstance(value, str):
            raise InvalidFile(
                f"{name}: {where}: the value must be a string, found {describe(value)}."
            )
        key = slot_key(slot) if slot is not None else ""
        normal = normalise(key.rpartition("-")[2] if key else "", value)
        if normal is None:
            continue
        if slot is None:
            anywhere.add(normal)
        else:
            by_slot.add((key, normal))
    return TrainingValues(hashlib.sha256(data).hexdigest(), frozenset(by_slot), frozenset(anywhere))


def seen_columns(
    turns: Sequence[Sequence[tuple[float, bool]]],
) -> dict[str, tuple[list[float], list[float]]]:
    """Per dialogue, from (turn JGA score, turn seen) pairs: the ``jga_seen`` and
    ``jga_unseen`` numerators and denominators."""
    seen_num, seen_den, unseen_num, unseen_den = [], [], [], []
    for dialogue in turns:
        sn = sd = un = ud = 0.0
        for score, seen in dialogue:
            if seen:
                sn += score
                sd += 1
            else:
                un += score
                ud += 1
        seen_num.append(sn)
        seen_den.append(sd)
        unseen_num.append(un)
        unseen_den.append(ud)
    return {"jga_seen": (seen_num, seen_den), "jga_unseen": (unseen_num, unseen_den)}


def seen_details(
    training: TrainingValues, columns: dict[str, tuple[list[float], list[float]]]
) -> dict[str, object]:
    """What the breakdown was computed from: the training file's hash and the turn counts."""
    return {
        "training_values_sha256": training.sha256,
        "seen_turns": int(sum(columns["jga_seen"][1])),
        "unseen_turns": int(sum(columns["jga_unseen"][1])),
    }
