"""Errors raised by the scorer.

Every message is written for a participant: it says what is wrong and where (file, dialogue id,
turn, line), and never contains a traceback, a file-system path or data from the hidden gold
beyond dialogue ids and turn counts, which the participant already has.
"""

from __future__ import annotations

from collections.abc import Sequence

#: How many individual problems one error message lists before summarising the rest.
MAX_LISTED = 20


class ScoringError(ValueError):
    """A file or an option the scorer cannot accept; ``str(error)`` is safe to show anyone."""

    def __init__(self, message: str, *, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.problems = tuple(problems)

    def __str__(self) -> str:
        return self.message


class InvalidFile(ScoringError):
    """The content of an uploaded file is malformed or does not match the reference."""


class MismatchedFile(InvalidFile):
    """The file was read, and has dialogues or turns the reference does not have."""


class IncompleteFile(InvalidFile):
    """The file was read, and lacks dialogues or turns of the reference (under the
    ``missing="reject"`` policy)."""


def kind(error: ScoringError) -> str:
    """What went wrong with a refused file, in a word a page can show: ``incomplete`` (read,
    but dialogues or turns of the reference are missing), ``mismatched`` (read, but it has
    dialogues or turns the reference does not) or ``unreadable`` (not a prediction file in an
    accepted format: not JSON, wrong shape, wrong types)."""
    if isinstance(error, IncompleteFile):
        return "incomplete"
    if isinstance(error, MismatchedFile):
        return "mismatched"
    return "unreadable"


#: Characters of one listed item a message shows (an id from a hostile file can be megabytes).
ITEM_CHARS = 60


def listing(items: Sequence[str], limit: int = MAX_LISTED) -> str:
    """Join ``items`` for a message, naming the first ``limit`` (each cut to ``ITEM_CHARS``)
    and counting the rest."""
    shown = ", ".join(
        item if len(item) <= ITEM_CHARS else item[: ITEM_CHARS - 1] + "\u2026"
        for item in items[:limit]
    )
    if len(items) > limit:
        shown += f" and {len(items) - limit} more"
    return shown
