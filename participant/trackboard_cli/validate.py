"""Checking a prediction file before uploading it, with the scorer's own messages.

The challenge's task (its ``scoring`` block in the API: task name and options) checks what it
can without the hidden reference: the file is in one of the task's formats and every state is
well formed. Dialogue ids and turn counts need the reference; the server checks them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from scoring import ScoringError, Source, Task, get_task


def local_task(task: str, options: Mapping[str, str] | None = None) -> Task:
    """The scoring task ``task`` if this installation knows it and its ``options``; raises
    ``ScoringError`` otherwise (e.g. a server with a newer scorer)."""
    found = get_task(task)
    found.check_options(options)
    return found


def check_file(path: Path, task: str, options: Mapping[str, str] | None = None) -> str:
    """The detected format of ``path``; raises ``ScoringError`` with the server's message."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ScoringError(f"{path}: cannot read the file ({exc.strerror}).") from None
    return get_task(task).check_prediction(Source(data, path.name), options)
