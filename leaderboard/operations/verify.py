"""Check that every stored reference file (gold and extra files) and prediction file still
matches its recorded sha256."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from leaderboard.challenges.models import Reference, ReferenceFile
from leaderboard.storage import private_storage
from leaderboard.submissions.models import SubmissionFile

CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Problem:
    kind: str  # "reference", "reference file" or "submission file"
    pk: int
    name: str
    reason: str  # "missing" or "sha256 mismatch"

    def __str__(self) -> str:
        return f"{self.kind} {self.pk} ({self.name}): {self.reason}"


def _sha256(name: str) -> str | None:
    storage = private_storage()
    digest = hashlib.sha256()
    try:
        with storage.open(name, "rb") as handle:
            while chunk := handle.read(CHUNK):
                digest.update(chunk)
    except (OSError, ValueError):
        # FileNotFoundError on disk; django-storages raises its own OSError/ValueError kinds.
        return None
    return digest.hexdigest()


def stored_files() -> Iterator[tuple[str, int, str, str]]:
    for pk, name, sha in Reference.objects.values_list("pk", "file", "sha256").order_by("pk"):
        yield "reference", pk, name, sha
    extra = ReferenceFile.objects.values_list("pk", "file", "sha256").order_by("pk")
    for pk, name, sha in extra:
        yield "reference file", pk, name, sha
    rows = SubmissionFile.objects.values_list("pk", "file", "sha256").order_by("pk")
    for pk, name, sha in rows.iterator():
        yield "submission file", pk, name, sha


def verify_files() -> tuple[int, list[Problem]]:
    """(files checked, problems found), reading each file in chunks."""
    checked = 0
    problems: list[Problem] = []
    for kind, pk, name, expected in stored_files():
        checked += 1
        actual = _sha256(name) if name else None
        if actual is None:
            problems.append(Problem(kind, pk, name, "missing"))
        elif actual != expected:
            problems.append(Problem(kind, pk, name, "sha256 mismatch"))
    return checked, problems
