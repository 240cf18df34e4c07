"""Checking a prediction file before uploading it, with the scorer's own messages.

Without the hidden reference the command can check what the server checks first: the file is
UTF-8 JSON or manifest text in a known format, every turn is a state object of string slot
values, and no slot is given twice. Dialogue ids and turn counts are checked by the server.
"""

from __future__ import annotations

from pathlib import Path

from scoring.dstc11.states import normalise_dialogues
from scoring.errors import ScoringError
from scoring.formats import read_file


def check_file(path: Path, profile: str = "default") -> str:
    """The detected format of ``path``; raises ``ScoringError`` with the server's message."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ScoringError(f"{path}: cannot read the file ({exc.strerror}).") from None
    parsed = read_file(data, path.name)
    normalise_dialogues(
        parsed.name, tuple(parsed.original_ids.values()), parsed.dialogues.values(), profile
    )
    return parsed.format
