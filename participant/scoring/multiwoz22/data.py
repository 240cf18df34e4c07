"""Reading ``multiwoz22`` gold and prediction files into frames per user turn.

``sgd-dialogues`` (gold and predictions): the MultiWOZ 2.2 / Schema-Guided dialogue format, a
JSON list of ``{"dialogue_id": str, "turns": [{"speaker": "USER" | "SYSTEM", "frames": [{"service":
str, "state": {"active_intent": str, "requested_slots": [str], "slot_values": {slot: [str]}}}]}]}``.
Only user turns count (system turns may be left out); their order gives the user-turn index.
In a prediction, ``active_intent`` defaults to ``NONE``, ``requested_slots`` to ``[]``, a slot
value may be a string instead of a list, and only the first listed value is scored (the
Schema-Guided evaluator's rule); a frame missing for a gold service is an empty frame.

``flat-states`` (predictions only): ``{dialogue_id: [{slot: value or [values]}, ...]}``, one
object per user turn, where ``slot`` is a schema slot name that belongs to one service
(``hotel-pricerange``) or ``service-slot``. Flat states carry no intents or requested slots, so
active-intent accuracy and requested-slot F1 are not computed for them.

Services and slots must be in the schema. Dialogue ids are compared lower-cased, without
``.json``.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring.errors import InvalidFile
from scoring.formats import Budget, describe, dialogue_key, load_json, quote
from scoring.multiwoz22.schema import Schema, name_key
from scoring.multiwoz22.values import DONTCARE, normalise_value

FORMATS = ("sgd-dialogues", "flat-states")
NO_INTENT = "none"


@dataclass(frozen=True)
class Frame:
    service: str
    #: slot -> normalised acceptable values (gold) or the one scored value (prediction).
    values: Mapping[str, tuple[str, ...]]
    intent: str | None = None
    requested: tuple[str, ...] | None = None


#: service -> frame, for one user turn.
Turn = Mapping[str, Frame]


@dataclass(frozen=True)
class Dialogues:
    name: str
    format: str
    sha256: str
    turns: Mapping[str, tuple[Turn, ...]]
    original_ids: Mapping[str, str]
    #: (service, slot) -> how often a categorical value outside the schema's was predicted.
    off_schema: Mapping[str, int] = field(default_factory=dict)


class _Reader:
    """Reads dialogues; without a schema (checking a prediction before upload) services and
    slots are taken as written."""

    def __init__(self, name: str, schema: Schema | None, gold: bool) -> None:
        self.name = name
        self.schema = schema
        self.gold = gold
        self.off_schema: Counter[str] = Counter()

    def fail(self, where: str, message: str) -> InvalidFile:
        return InvalidFile(f"{self.name}: {where}: {message}")

    def values(self, service: str, slot: str, raw: Any, where: str) -> tuple[str, ...]:
        listed = [raw] if isinstance(raw, str) and not self.gold else raw
        if not isinstance(listed, list) or not all(isinstance(v, str) for v in listed):
            kind = "a list of strings" if self.gold else "a string or a list of strings"
            raise self.fail(where, f"slot {quote(slot)}: expected {kind}, found {describe(raw)}.")
        normal: list[str] = []
        for value in listed:
            v = normalise_value(value)
            if v is not None and v not in normal:
                normal.append(v)
        if not self.gold and normal:
            normal = normal[:1]
            if self.schema is None:
                return tuple(normal)
            spec = self.schema.services[service].slots[slot]
            if (
                spec.categorical
                and spec.possible_values
                and normal[0] not in spec.possible_values
                and normal[0] != DONTCARE
            ):
                self.off_schema[f"{service}-{slot}" if "-" not in slot else slot] += 1
        return tuple(normal)

    def frame(self, raw: Any, where: str) -> Frame:
        if not isinstance(raw, dict):
            raise self.fail(where, f"expected a frame object, found {describe(raw)}.")
        service_raw = raw.get("service")
        if not isinstance(service_raw, str):
            raise self.fail(where, "the frame has no 'service' string.")
        service = name_key(service_raw)
        spec = self.schema.services.get(service) if self.schema is not None else None
        if spec is None and self.schema is not None:
            raise self.fail(where, f"service {quote(service_raw)} is not in the schema.")
        state = raw.get("state")
        if not isinstance(state, dict):
            raise self.fail(where, f"service {quote(service)}: the frame has no 'state' object.")
        slot_values = state.get("slot_values", {})
        if not isinstance(slot_values, dict):
            raise self.fail(where, f"service {quote(service)}: 'slot_values' must be an object.")
        values: dict[str, tuple[str, ...]] = {}
        for slot_raw, raw_values in slot_values.items():
            slot = name_key(slot_raw)
            if spec is not None and slot not in spec.slots:
                raise self.fail(
                    where, f"slot {quote(slot_raw)} is not a slot of service {quote(service)}."
                )
            if slot in values:
                raise self.fail(where, f"slot {quote(slot_raw)} is given twice.")
            normal = self.values(service, slot, raw_values, where)
            if normal:
                values[slot] = normal
        intent = state.get("active_intent", "NONE")
        requested = state.get("requested_slots", [])
        if not isinstance(intent, str):
            raise self.fail(where, f"service {quote(service)}: 'active_intent' must be a string.")
        if not isinstance(requested, list) or not all(isinstance(r, str) for r in requested):
            raise self.fail(where, f"service {quote(service)}: 'requested_slots' must be a list.")
        return Frame(service, values, name_key(intent), tuple(name_key(r) for r in requested))

    def dialogues(self, document: Any) -> tuple[dict[str, tuple[Turn, ...]], dict[str, str]]:
        result: dict[str, tuple[Turn, ...]] = {}
        ids: dict[str, str] = {}
        for index, dialogue in enumerate(document):
            where = f"dialogue {index}"
            if not isinstance(dialogue, dict):
                raise self.fail(where, f"expected a dialogue object, found {describe(dialogue)}.")
            raw_id = dialogue.get("dialogue_id")
            if not isinstance(raw_id, str) or not raw_id.strip():
                raise self.fail(where, "the dialogue has no 'dialogue_id' string.")
            key = dialogue_key(raw_id)
            if key in result:
                raise self.fail(f"dialogue {quote(raw_id)}", "the dialogue id appears twice.")
            turns = dialogue.get("turns")
            if not isinstance(turns, list):
                raise self.fail(f"dialogue {quote(raw_id)}", "the dialogue has no 'turns' list.")
            user: list[Turn] = []
            for t, turn in enumerate(turns):
                # turns counted from 1: the file's turn (user and system), then the user turn
                at = f"dialogue {quote(raw_id)}, turn {t + 1}"
                if not isinstance(turn, dict) or not isinstance(turn.get("speaker"), str):
                    raise self.fail(at, "expected a turn object with a 'speaker' string.")
                if turn["speaker"].strip().upper() != "USER":
                    continue
                frames = turn.get("frames")
                if not isinstance(frames, list):
                    raise self.fail(at, "the user turn has no 'frames' list.")
                by_service: dict[str, Frame] = {}
                for f, raw in enumerate(frames):
                    frame = self.frame(raw, f"{at} (user turn {len(user) + 1}), frame {f + 1}")
                    if frame.service in by_service:
                        raise self.fail(at, f"service {quote(frame.service)} has two frames.")
                    by_service[frame.service] = frame
                user.append(by_service)
            result[key] = tuple(user)
            ids[key] = raw_id
        return result, ids

    def flat(self, document: dict[str, Any]) -> tuple[dict[str, tuple[Turn, ...]], dict[str, str]]:
        result: dict[str, tuple[Turn, ...]] = {}
        ids: dict[str, str] = {}
        for raw_id, turns in document.items():
            key = dialogue_key(raw_id)
            if not key or key in result:
                raise self.fail(
                    f"dialogue {quote(raw_id)}", "the dialogue id is empty or repeated."
                )
            if not isinstance(turns, list):
                raise self.fail(
                    f"dialogue {quote(raw_id)}",
                    f"expected a list of states, found {describe(turns)}.",
                )
            user: list[Turn] = []
            for t, state in enumerate(turns):
                at = f"dialogue {quote(raw_id)}, turn {t + 1}"
                if not isinstance(state, dict):
                    raise self.fail(at, f"expected a state object, found {describe(state)}.")
                slots: dict[str, dict[str, tuple[str, ...]]] = {}
                for slot_raw, raw in state.items():
                    found = (
                        self.schema.resolve(slot_raw)
                        if self.schema is not None
                        else (name_key(slot_raw).partition("-")[0], name_key(slot_raw))
                    )
                    if found is None:
                        raise self.fail(at, f"slot {quote(slot_raw)} is not in the schema.")
                    service, slot = found
                    if slot in slots.get(service, {}):
                        raise self.fail(at, f"slot {quote(slot_raw)} is given twice.")
                    normal = self.values(service, slot, raw, at)
                    if normal:
                        slots.setdefault(service, {})[slot] = normal
                user.append({s: Frame(s, v) for s, v in slots.items()})
            result[key] = tuple(user)
            ids[key] = raw_id
        return result, ids


def read_dialogues(
    data: bytes, name: str, schema: Schema | None, gold: bool, limit: Budget | None = None
) -> Dialogues:
    """Read a gold (``gold=True``: ``sgd-dialogues`` only) or prediction file (without a
    schema: checked for everything but the schema's services, slots and values), refused
    before parsing when larger than ``limit`` allows."""
    document = load_json(data, name, limit)
    reader = _Reader(name, schema, gold)
    if isinstance(document, list):
        turns, ids = reader.dialogues(document)
        form = "sgd-dialogues"
    elif isinstance(document, dict) and not gold:
        turns, ids = reader.flat(document)
        form = "flat-states"
    else:
        expected = "a JSON list of dialogues" + ("" if gold else " or an object of dialogue ids")
        raise InvalidFile(f"{name}: expected {expected}, found {describe(document)}.")
    if gold and not turns:
        raise InvalidFile(f"{name}: the reference contains no dialogues.")
    sha256 = hashlib.sha256(data).hexdigest()
    return Dialogues(name, form, sha256, turns, ids, dict(reader.off_schema))
