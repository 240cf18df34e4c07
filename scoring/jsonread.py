"""Strict JSON reading for the newer tasks' files, with participant-safe messages.

Duplicate keys, NaN and Infinity are rejected (a silently dropped duplicate would change a
score); syntax errors name the line and column; text must be UTF-8. The same reader as the
``dstc11`` formats (:mod:`scoring.formats`), with a task-neutral message.
"""

from __future__ import annotations

from typing import Any

from scoring.formats import decode_text, exact_decode

__all__ = ["decode_text", "load_json"]


def load_json(data: bytes, name: str) -> Any:
    """Parse a whole file as JSON, strictly."""
    return exact_decode(decode_text(data, name), name, keys="every key")
