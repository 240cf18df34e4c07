"""Strict JSON reading for the newer tasks' files, with participant-safe messages.

Duplicate keys, NaN and Infinity are rejected (a silently dropped duplicate would change a
score); syntax errors name the line and column; text must be UTF-8.
"""

from __future__ import annotations

import json
from typing import Any

from scoring.errors import InvalidFile
from scoring.formats import quote


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


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_pairs, parse_constant=_reject_constant)


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 text (a byte-order mark is dropped); anything else raises InvalidFile."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InvalidFile(f"{name}: the file is UTF-16 encoded; save it as UTF-8.")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InvalidFile(
            f"{name}: line {line}: invalid UTF-8 byte 0x{data[error.start]:02x}; the file must "
            "be UTF-8 text."
        ) from None
    if not text.strip():
        raise InvalidFile(f"{name}: the file is empty (or only white space).")
    return text


def load_json(data: bytes, name: str) -> Any:
    """Parse a whole file as JSON, strictly."""
    text = decode_text(data, name)
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as error:
        raise InvalidFile(
            f"{name}: line {error.lineno}, column {error.colno}: invalid JSON ({error.msg})."
        ) from None
    except _DuplicateKey as error:
        raise InvalidFile(
            f"{name}: the key {quote(error.key)} appears twice in the same JSON object; "
            "every key may appear only once."
        ) from None
    except ValueError as error:  # NaN / Infinity
        raise InvalidFile(f"{name}: invalid JSON ({error}).") from None
    except RecursionError:
        raise InvalidFile(f"{name}: the JSON is nested too deeply.") from None
