"""Readers for the file formats the ``dstc11`` task accepts, with format detection.

Formats (docs/scoring.md):

``gold-json``
    ``{dialog_id: [ {domain: {slot: value}} per user turn ]}``, as the DSTC11 gold is published.
    Predictions in this shape are reported as ``gold-json`` too.
``mwz-wrapper``
    The MultiWOZ-evaluation wrapper ``{dialog_id: [ {"state": {domain: {slot: value}}, ...} ]}``.
``manifest``
    DSTC11 manifest text lines, ``line_nr: N dialog_id: D.json turn_id: T text: user: ...
    state: dom-slot=value; dom-slot=value``; only user lines carry states.

A reader returns a :class:`ParsedFile` of *raw* states (not normalised): normalisation depends
on the profile and happens when scoring. Every structural problem raises :class:`InvalidFile`
with the file name, dialogue id, user turn (counted from 1, as everywhere a participant reads
a turn) or line number.

The cost of reading a file is bounded before it is parsed (:class:`Budget`, for every task):
a prediction for a reference cannot need more values than the reference's dialogues, turns
and slots allow, and every string it carries must be storable (no NUL, no lone surrogate).
"""

from __future__ import annotations

import gc
import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from scoring.errors import InvalidFile

FORMATS = ("gold-json", "mwz-wrapper", "manifest")

#: A raw turn state: domain -> slot -> value, exactly as read.
RawTurn = Mapping[str, Mapping[str, str]]


@dataclass(frozen=True)
class ParsedFile:
    """One file read into raw per-dialogue turn states."""

    name: str
    format: str
    sha256: str
    #: canonical dialogue id -> raw states of its user turns, in order.
    dialogues: Mapping[str, tuple[RawTurn, ...]]
    #: canonical dialogue id -> the id as written in the file.
    original_ids: Mapping[str, str] = field(default_factory=dict)


def dialogue_key(raw_id: str) -> str:
    """Canonical dialogue id: lower-cased, without a trailing ``.json``."""
    key = raw_id.strip().lower()
    return key[:-5] if key.endswith(".json") else key


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building large acyclic structures.

    Parsing creates hundreds of thousands of containers and no cycles; without this, the
    collector walks the whole (growing) heap again and again, which costs a third of the time.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class Budget:
    """The most a prediction for one reference can hold, counted before it is parsed.

    ``items`` bounds :func:`count_items`: the reference's own count, and for each of its user
    turns a state naming every slot it knows several times over (wrong slots are scored, not
    refused); more cannot be a prediction for it, and parsing more would cost memory and time
    out of proportion to the file (a file of tiny turns costs tens of times its size once
    parsed)."""

    items: int
    dialogues: int
    turns: int


#: Bytes that open, separate or end a value, a key or a line, in every format the tasks read.
_SEPARATORS = (b"{", b"[", b",", b":", b";", b"\n")


def count_items(data: bytes) -> int:
    """How many values, keys and lines ``data`` holds, at most: its separators, counted at the
    speed of a byte search and with nothing built (inside strings too, so never fewer)."""
    return sum(map(data.count, _SEPARATORS))


def budget(gold: bytes, dialogues: int, turns: int, per_turn: int) -> Budget:
    """The budget of a reference read from ``gold``, with ``per_turn`` more items per turn."""
    return Budget(1024 + count_items(gold) + turns * per_turn, dialogues, turns)


def check_budget(data: bytes, name: str, limit: Budget | None) -> None:
    """Refuse ``data`` before parsing it when it holds more than ``limit`` allows."""
    if limit is None:
        return
    found = count_items(data)
    if found > limit.items:
        raise InvalidFile(
            f"{name}: the file holds about {found:,} values, keys and lines; a prediction for "
            f"this reference ({limit.dialogues:,} dialogues, {limit.turns:,} user turns) needs "
            f"at most {limit.items:,}. The file was not read further."
        )


def read_file(data: bytes, name: str, limit: Budget | None = None) -> ParsedFile:
    """Detect the format of ``data`` and read it. ``name`` is used in messages only; ``limit``
    refuses a file larger than a prediction for its reference can be, before parsing it."""
    check_budget(data, name, limit)
    with paused_gc():
        return _read_file(data, name)


# White space as str.strip() sees it (the file's first character decides its format).
_LEADING_SPACE = re.compile(r"\s*")
_LEADING_SPACE_BYTES = re.compile(rb"\s*")

#: The longest manifest line read, in bytes: one turn's text and state need far less, and a
#: longer line would be copied several times over while it is read.
MAX_MANIFEST_LINE = 65536


def long_stretch(data: bytes, separator: bytes, limit: int) -> int:
    """Where the first stretch of more than ``limit`` bytes without ``separator`` starts (at
    the start of ``data`` or just after a separator); -1 when there is none. Each step looks
    back from the end of a window of ``limit + 1`` bytes for its last separator and starts the
    next window just after it: a stretch that fits in a window ends at a separator, and no
    byte is looked at twice, so a file costs a few bytes a window (a regular expression tried
    after every separator read each window again: about twice a JSON file's parse)."""
    start = 0
    while len(data) - start > limit:
        found = data.rfind(separator, start, start + limit + 1)
        if found < 0:
            return start
        start = found + len(separator)
    return -1


def check_manifest_lines(data: bytes, name: str) -> None:
    """Refuse a manifest with a line longer than ``MAX_MANIFEST_LINE`` bytes, before it is
    decoded or split."""
    found = long_stretch(data, b"\n", MAX_MANIFEST_LINE)
    if found < 0:
        return
    number = data.count(b"\n", 0, found) + 1
    end = data.find(b"\n", found)
    length = (len(data) if end < 0 else end) - found
    raise InvalidFile(
        f"{name}: line {number} is {length:,} bytes long; a manifest line (one turn's text and "
        f"state) may be at most {MAX_MANIFEST_LINE:,} bytes. The file was not read further."
    )


#: The longest stretch of a JSON prediction without a quote, in bytes: every dialogue id,
#: slot and value is a string far shorter, and the structure between them is a few bytes.
MAX_JSON_STRETCH = 65536


def check_json_stretches(data: bytes, name: str) -> None:
    """Refuse a JSON prediction with more than ``MAX_JSON_STRETCH`` bytes in a row without a
    quote (a giant id or value), before it is decoded or parsed."""
    found = long_stretch(data, b'"', MAX_JSON_STRETCH)
    if found < 0:
        return
    number = data.count(b"\n", 0, found) + 1
    raise InvalidFile(
        f"{name}: line {number}: more than {MAX_JSON_STRETCH:,} bytes in a row without a quote "
        f"(from byte offset {found:,}); no dialogue id, slot or value of a prediction "
        "is that long. The file was not read further."
    )


def _read_file(data: bytes, name: str) -> ParsedFile:
    sha256 = hashlib.sha256(data).hexdigest()
    # A manifest's lines are bounded before the file is decoded and split: the text and the
    # lines are one copy of the file each, and nothing per line is large.
    first = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    spaces = _LEADING_SPACE_BYTES.match(data, first)
    start = spaces.end() if spaces else first
    if data.startswith(b"line_nr:", start):
        check_manifest_lines(data, name)
    elif data.startswith(b"{", start):
        check_json_stretches(data, name)
    text = decode_text(data, name)
    leading = _LEADING_SPACE.match(text)
    start = leading.end() if leading else 0
    if text.startswith("{", start):
        return _read_json(text, name, sha256)
    if text.startswith("line_nr:", start):
        return _read_manifest(text, name, sha256)
    if text.startswith("[", start):
        raise InvalidFile(
            f"{name}: the top level is a JSON array; expected an object mapping each dialogue "
            "id to its list of user-turn states."
        )
    raise InvalidFile(
        f"{name}: unrecognised format. Expected JSON (an object of dialogue ids) or DSTC11 "
        "manifest lines beginning with 'line_nr:'."
    )


#: how compressed files begin, and what they are
_COMPRESSED = (
    (b"\x1f\x8b", "gzip-compressed"),
    (b"PK\x03\x04", "a zip archive"),
    (b"BZh", "bzip2-compressed"),
    (b"\xfd7zXZ\x00", "xz-compressed"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed"),
)


def decode_text(data: bytes, name: str) -> str:
    """The file as UTF-8 text (a byte-order mark is dropped); UTF-16, invalid UTF-8, NUL bytes
    and an empty file raise InvalidFile naming the line."""
    for magic, kind in _COMPRESSED:
        if data.startswith(magic):
            raise InvalidFile(
                f"{name}: the file is {kind}; compressed files are not accepted. Upload the "
                "uncompressed file."
            )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InvalidFile(f"{name}: the file is UTF-16 encoded; save it as UTF-8.")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InvalidFile(
            f"{name}: line {line}: invalid UTF-8 byte 0x{data[error.start]:02x} at byte offset "
            f"{error.start}; the file must be UTF-8 text."
        ) from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InvalidFile(f"{name}: line {line}: the file contains a NUL byte; it must be text.")
    if not text or text.isspace():
        raise InvalidFile(f"{name}: the file is empty (or only white space).")
    return text


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result


def _reject_constant(token: str) -> Any:
    raise ValueError(f"{token} is not allowed in JSON")


# The stdlib decoder reports duplicate keys (through the pairs hook), which a participant must
# hear about rather than lose one silently, and gives precise messages for syntax errors.
_DECODER = json.JSONDecoder(object_pairs_hook=_unique_pairs, parse_constant=_reject_constant)


def _read_json(text: str, name: str, sha256: str) -> ParsedFile:
    """Read a JSON file, rejecting duplicate keys, NaN and Infinity (:func:`exact_decode`)."""
    return _collect(exact_decode(text, name), name, sha256)


def load_json(data: bytes, name: str, limit: Budget | None = None) -> Any:
    """Parse a whole file as JSON, strictly (for the other tasks' files), within ``limit``."""
    check_budget(data, name, limit)
    return exact_decode(decode_text(data, name), name, keys="every key")


# A JSON escape of NUL or of half a UTF-16 surrogate pair; the backslashes before it are
# counted where it is found (an escaped backslash followed by "u0000" is text).
_RISKY_ESCAPE = re.compile(r"\\u(0000|[dD][89abAB][0-9a-fA-F]{2}|[dD][c-fC-F][0-9a-fA-F]{2})")
_LOW_ESCAPE = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _check_escapes(text: str, name: str) -> None:
    """Refuse a JSON string holding NUL or a lone surrogate: no database stores either, so a
    file that carried one would be accepted and then fail when its results are written."""
    if "\\u" not in text:
        return
    paired = -1  # where the low half of the last valid pair starts
    for match in _RISKY_ESCAPE.finditer(text):
        start = before = match.start()
        while before and text[before - 1] == "\\":
            before -= 1
        if (start - before) % 2 or start == paired:
            continue  # an escaped backslash then text, or the second half of a pair
        code = match[1].lower()
        if code[:2] in ("d8", "d9", "da", "db") and _LOW_ESCAPE.match(text, match.end()):
            paired = match.end()
            continue
        line = text.count("\n", 0, start) + 1
        what = "a NUL character" if code == "0000" else "half of a UTF-16 surrogate pair"
        raise InvalidFile(
            f"{name}: line {line}: the escape \\u{code} is {what}, which is not text; "
            "strings may not contain it."
        )


def exact_decode(text: str, name: str, keys: str = "every dialogue id, domain and slot") -> Any:
    """Strict JSON: duplicate keys, NaN, Infinity and syntax errors raise InvalidFile with the
    line and column; ``keys`` names what must be unique in the message. A NUL or a lone
    surrogate in a string is refused (:func:`_check_escapes`)."""
    _check_escapes(text, name)
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as error:
        raise InvalidFile(
            f"{name}: line {error.lineno}, column {error.colno}: invalid JSON ({error.msg})."
        ) from None
    except _DuplicateKey as error:
        raise InvalidFile(
            f"{name}: the key {quote(error.key)} appears twice in the same JSON object; "
            f"{keys} may appear only once."
        ) from None
    except ValueError as error:  # NaN / Infinity
        raise InvalidFile(f"{name}: invalid JSON ({error}).") from None
    except RecursionError:
        raise InvalidFile(f"{name}: the JSON is nested too deeply.") from None


def _collect(document: Any, name: str, sha256: str) -> ParsedFile:
    """Check the outer shape and gather the raw states."""
    if not isinstance(document, dict):
        raise InvalidFile(
            f"{name}: the top level is a JSON {json_type(document)}; expected an object mapping "
            "each dialogue id to its list of user-turn states."
        )
    wrapper = _is_wrapper(document)
    dialogues: dict[str, tuple[RawTurn, ...]] = {}
    original: dict[str, str] = {}
    for raw_id, turns in document.items():
        key = dialogue_key(raw_id)
        if not key:
            raise InvalidFile(f"{name}: an empty dialogue id is not allowed.")
        if key in original:
            raise InvalidFile(
                f"{name}: dialogue ids {quote(original[key])} and {quote(raw_id)} are the same "
                "dialogue once lower-cased (and without '.json'); keep one."
            )
        original[key] = raw_id
        if not isinstance(turns, list):
            raise InvalidFile(
                f"{name}: dialogue {quote(raw_id)}: expected a list of user-turn states, "
                f"found a JSON {json_type(turns)}."
            )
        if not wrapper:
            dialogues[key] = tuple(turns)
            continue
        states = []
        for index, turn in enumerate(turns):
            state = turn.get("state") if type(turn) is dict else None
            if type(state) is not dict:
                raise InvalidFile(
                    f"{name}: dialogue {quote(raw_id)}, turn {index + 1}: expected an object "
                    "with a 'state' object (MultiWOZ-evaluation format), found "
                    f"{describe(turn)}."
                )
            states.append(state)
        dialogues[key] = tuple(states)
    return ParsedFile(name, "mwz-wrapper" if wrapper else "gold-json", sha256, dialogues, original)


def _is_wrapper(document: dict[str, Any]) -> bool:
    for turns in document.values():
        if isinstance(turns, list) and turns:
            first = turns[0]
            return isinstance(first, dict) and isinstance(first.get("state"), dict)
    return False


_MANIFEST_LINE = re.compile(
    r"line_nr:\s*(\d{1,12})\s+dialog_id:\s*(\S+)\s+turn_id:\s*(\d{1,12})\s+text:\s*"
    r"(user|agent)\s*:(.*)",
    re.DOTALL,
)


def _read_manifest(text: str, name: str, sha256: str) -> ParsedFile:
    dialogues: dict[str, list[RawTurn]] = {}
    original: dict[str, str] = {}
    last_turn_id: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        match = _MANIFEST_LINE.match(line.strip())
        if match is None:
            raise InvalidFile(
                f"{name}: line {number}: not a manifest line; expected 'line_nr: N dialog_id: "
                "D.json turn_id: T text: user: ... state: ...'."
            )
        raw_id, turn_id, speaker, rest = match[2], int(match[3]), match[4], match[5]
        _, found, state_text = rest.rpartition(" state:")
        if not found and rest.startswith("state:"):
            found, state_text = "state:", rest[len("state:") :]
        if not found:
            raise InvalidFile(f"{name}: line {number}: the line has no 'state:' field.")
        key = dialogue_key(raw_id)
        if key in original and original[key] != raw_id:
            raise InvalidFile(
                f"{name}: line {number}: dialogue ids {quote(original[key])} and "
                f"{quote(raw_id)} are the same dialogue once lower-cased; keep one spelling."
            )
        original.setdefault(key, raw_id)
        previous = last_turn_id.get(key)
        if previous is not None and turn_id <= previous:
            raise InvalidFile(
                f"{name}: line {number}: dialogue {quote(raw_id)}: turn_id {turn_id} does not "
                f"follow turn_id {previous}; each turn may appear once, in order."
            )
        last_turn_id[key] = turn_id
        turns = dialogues.setdefault(key, [])
        if speaker == "user":
            turns.append(_manifest_state(state_text, name, number))
    return ParsedFile(
        name, "manifest", sha256, {k: tuple(v) for k, v in dialogues.items()}, original
    )


def _manifest_state(state_text: str, name: str, number: int) -> RawTurn:
    state: dict[str, dict[str, str]] = {}
    for item in state_text.split(";"):
        item = item.strip()
        if not item:
            continue
        slot_name, equals, value = item.partition("=")
        domain, dash, slot = slot_name.strip().partition("-")
        if not equals or not dash or not domain or not slot:
            raise InvalidFile(
                f"{name}: line {number}: state item {quote(item)} is not 'domain-slot=value'."
            )
        slots = state.setdefault(domain, {})
        if slot in slots:
            raise InvalidFile(
                f"{name}: line {number}: slot {quote(slot_name.strip())} appears twice in the "
                "state."
            )
        slots[slot] = value.strip()
    return state


def quote(text: str, limit: int = 60) -> str:
    shown = text if len(text) <= limit else text[: limit - 1] + "\u2026"
    return repr(shown)


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    return "number"


def describe(value: Any) -> str:
    kind = json_type(value)
    if kind in ("object", "array"):
        return f"a JSON {kind}"
    if kind == "string":
        return f"the string {quote(value, 40)}"
    return f"{'' if kind == 'null' else 'the ' + kind + ' '}{json.dumps(value)}".strip()


__all__ = [
    "FORMATS",
    "Budget",
    "ParsedFile",
    "RawTurn",
    "budget",
    "check_budget",
    "count_items",
    "describe",
    "dialogue_key",
    "load_json",
    "quote",
    "read_file",
]
