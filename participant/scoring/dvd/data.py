"""Reading ``dvd`` (DVD-DST) gold and prediction files.

A file is a JSON object ``{dialogue_id: [state, ...]}`` with one state per turn, every state in
one of two forms (one form per file):

``token-sequence``
    The original DVD-DST string: an optional temporal segment of two frame tokens, then objects
    with their attributes, e.g. ``"<frame12> <frame48> <obj3> SIZE large COLOR red <obj5> SHAPE
    cube"``. Slot names (``SIZE``, ``COLOR``, ``MATERIAL``, ``SHAPE``) are case-insensitive and
    each takes the next token as its value; an object may have no attributes. ``""`` is an
    empty state.
``dvd-json``
    ``{"segment": [start, end] or null, "objects": {"3": {"size": "large", "color": "red"}}}``:
    object ids are non-negative integers written as strings (``"3"`` or ``"obj3"``), slots as
    above in lower case, values non-empty strings; ``segment`` may be left out (no segment).

Frames are non-negative integers with start <= end. Values are compared lower-cased.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring.errors import InvalidFile
from scoring.formats import Budget, describe, dialogue_key, load_json, quote

SLOTS = ("size", "color", "material", "shape")
FORMATS = ("token-sequence", "dvd-json")
# At most nine digits: frame and object numbers are small, and a number of thousands of digits
# would cost the reader (and Python refuses to convert it).
_FRAME = re.compile(r"<frame(\d{1,9})>")
_OBJECT = re.compile(r"<obj(\d{1,9})>")
_OBJECT_ID = re.compile(r"(?:obj)?(\d{1,9})")


@dataclass(frozen=True)
class DvdState:
    """The state of one turn: object id -> slot -> value, and the segment (or None)."""

    objects: Mapping[int, Mapping[str, str]]
    segment: tuple[int, int] | None = None

    def triples(self) -> frozenset[tuple[int, str, str]]:
        return frozenset((o, s, v) for o, slots in self.objects.items() for s, v in slots.items())


EMPTY = DvdState({})


@dataclass(frozen=True)
class DvdFile:
    name: str
    format: str
    sha256: str
    turns: Mapping[str, tuple[DvdState, ...]]
    original_ids: Mapping[str, str]


def _segment(start: int, end: int, where: str) -> tuple[int, int]:
    if start > end:
        raise InvalidFile(f"{where}: the segment starts at frame {start}, after its end {end}.")
    return (start, end)


def parse_tokens(text: str, where: str) -> DvdState:
    """Parse one token-sequence state; ``where`` prefixes error messages."""
    tokens = text.split()
    position = 0
    segment = None
    if tokens and _FRAME.fullmatch(tokens[0]):
        second = _FRAME.fullmatch(tokens[1]) if len(tokens) > 1 else None
        first = _FRAME.fullmatch(tokens[0])
        if second is None or first is None:
            raise InvalidFile(f"{where}: a segment needs two frame tokens, <frameN> <frameM>.")
        segment = _segment(int(first[1]), int(second[1]), where)
        position = 2
    objects: dict[int, dict[str, str]] = {}
    current: dict[str, str] | None = None
    while position < len(tokens):
        token = tokens[position]
        found = _OBJECT.fullmatch(token)
        if found:
            obj = int(found[1])
            if obj in objects:
                raise InvalidFile(f"{where}: token {position}: object <obj{obj}> appears twice.")
            current = objects[obj] = {}
            position += 1
            continue
        slot = token.lower()
        if slot not in SLOTS or current is None:
            expected = "<objN> or a slot name (SIZE, COLOR, MATERIAL, SHAPE)"
            if current is None and slot in SLOTS:
                expected = "<objN> before the first slot"
            raise InvalidFile(f"{where}: token {position} {quote(token)}: expected {expected}.")
        if (
            position + 1 >= len(tokens)
            or tokens[position + 1].startswith("<")
            or tokens[position + 1].lower() in SLOTS
        ):
            raise InvalidFile(f"{where}: token {position} {quote(token)}: the slot has no value.")
        if slot in current:
            raise InvalidFile(f"{where}: token {position}: slot {token} is given twice.")
        current[slot] = tokens[position + 1].lower()
        position += 2
    return DvdState(objects, segment)


def _frame(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def parse_json_state(state: Any, where: str) -> DvdState:
    """Parse one ``dvd-json`` state."""
    if not isinstance(state, dict):
        raise InvalidFile(f"{where}: expected a state object, found {describe(state)}.")
    unknown = sorted(set(state) - {"segment", "objects"})
    if unknown:
        raise InvalidFile(f"{where}: unknown field(s) {', '.join(map(quote, unknown))}.")
    raw_segment = state.get("segment")
    segment = None
    if raw_segment is not None:
        if not (
            isinstance(raw_segment, list)
            and len(raw_segment) == 2
            and all(map(_frame, raw_segment))
        ):
            raise InvalidFile(
                f"{where}: 'segment' must be [start, end] with non-negative integer frames, or "
                f"null; found {describe(raw_segment)}."
            )
        segment = _segment(raw_segment[0], raw_segment[1], where)
    raw_objects = state.get("objects", {})
    if not isinstance(raw_objects, dict):
        raise InvalidFile(f"{where}: 'objects' must be an object, found {describe(raw_objects)}.")
    objects: dict[int, dict[str, str]] = {}
    for raw_id, slots in raw_objects.items():
        found = _OBJECT_ID.fullmatch(raw_id.strip().lower())
        if found is None:
            raise InvalidFile(f'{where}: object id {quote(raw_id)} is not a number like "3".')
        obj = int(found[1])
        if obj in objects:
            raise InvalidFile(f"{where}: object {obj} is given twice.")
        if not isinstance(slots, dict):
            raise InvalidFile(f"{where}: object {obj}: expected an object of slot values.")
        values: dict[str, str] = {}
        for slot, value in slots.items():
            if slot not in SLOTS:
                raise InvalidFile(
                    f"{where}: object {obj}: unknown slot {quote(slot)} (use size, color, "
                    "material, shape)."
                )
            if not isinstance(value, str) or not value.strip() or len(value.split()) > 1:
                raise InvalidFile(
                    f"{where}: object {obj}, slot {slot}: the value must be one word, found "
                    f"{describe(value)}."
                )
            values[slot] = value.strip().lower()
        objects[obj] = values
    return DvdState(objects, segment)


def read_dvd(data: bytes, name: str, limit: Budget | None = None) -> DvdFile:
    """Read a gold or prediction file, detecting its form from its first state; refused before
    parsing when larger than ``limit`` allows."""
    document = load_json(data, name, limit)
    if not isinstance(document, dict):
        raise InvalidFile(
            f"{name}: expected a JSON object mapping each dialogue id to its list of states, "
            f"found {describe(document)}."
        )
    form: str | None = None
    turns: dict[str, tuple[DvdState, ...]] = {}
    ids: dict[str, str] = {}
    for raw_id, states in document.items():
        key = dialogue_key(raw_id)
        if not key or key in turns:
            raise InvalidFile(
                f"{name}: dialogue {quote(raw_id)}: the dialogue id is empty or repeated."
            )
        if not isinstance(states, list):
            raise InvalidFile(
                f"{name}: dialogue {quote(raw_id)}: expected a list of states, found "
                f"{describe(states)}."
            )
        parsed = []
        for index, state in enumerate(states):
            where = f"{name}: dialogue {quote(raw_id)}, turn {index + 1}"  # counted from 1
            kind = "token-sequence" if isinstance(state, str) else "dvd-json"
            if form is None:
                form = kind
            elif kind != form:
                raise InvalidFile(
                    f"{where}: the file mixes forms; this state is {kind}, earlier ones {form}."
                )
            parsed.append(
                parse_tokens(state, where)
                if isinstance(state, str)
                else parse_json_state(state, where)
            )
        turns[key] = tuple(parsed)
        ids[key] = raw_id
    return DvdFile(name, form or "dvd-json", hashlib.sha256(data).hexdigest(), turns, ids)
