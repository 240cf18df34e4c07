"""Reference versions read back for scoring: checked with the challenge's task, summarised for
organisers, and kept loaded per process (a DSTC11 test gold is ~10 MB parsed), least recently
used first out once the files of those kept add up to more than
``TRACKBOARD_REFERENCE_CACHE_MB``."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db.models.fields.files import FieldFile

from leaderboard.challenges.models import Challenge, Reference
from leaderboard.storage import sha256_of
from scoring import Source

#: extra reference files, by the task's file name: (bytes, original file name)
ExtraFiles = Mapping[str, tuple[bytes, str]]

#: key -> (loaded reference, bytes of its files); a new version has a new sha256, so a key
#: never goes stale
_cache: OrderedDict[str, tuple[Any, int]] = OrderedDict()
_cache_lock = threading.Lock()


def check_reference(
    challenge: Challenge, data: bytes, name: str, files: ExtraFiles | None = None
) -> Any:
    """Load a reference (gold plus extra files) with the challenge's task and options.

    Raises ``scoring.ScoringError`` (participant-safe message) when a file is malformed, a
    required file (e.g. the multiwoz22 schema) is missing or the task takes no such file."""
    sources = {key: Source(blob, original) for key, (blob, original) in (files or {}).items()}
    return challenge.scoring_task().load_reference(
        Source(data, name), sources, challenge.task_options()
    )


def summarise(loaded: Any, name: str, files: ExtraFiles) -> dict[str, Any]:
    """What organisers see of a reference: the task's counts, its file name and extra files."""
    summary: dict[str, Any] = {**loaded.summary(), "name": name}
    if files:
        summary["files"] = {key: original for key, (_, original) in sorted(files.items())}
    return summary


def _key(challenge: Challenge, reference: Reference) -> str:
    files = ",".join(f"{f.name}:{f.sha256}" for f in reference.files.order_by("name"))
    options = ",".join(f"{k}={v}" for k, v in sorted(challenge.task_options().items()))
    return f"{challenge.task}|{reference.sha256}|{files}|{options}"


def _read(field: FieldFile, sha256: str, what: str) -> bytes:
    with field.open("rb") as handle:
        data: bytes = handle.read()
    if sha256_of(data) != sha256:
        # Storage corruption or a hand-edited file: never score against a different gold.
        raise OSError(f"{what} does not match its recorded sha256")
    return data


def loaded_reference(reference: Reference) -> Any:
    """The task's loaded reference (gold plus extra files), read once per process per
    version and options. Raises ``OSError`` when a stored file cannot be read or differs."""
    challenge = reference.condition.phase.challenge
    key = _key(challenge, reference)
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached[0]
    data, files = read_files(reference)
    loaded = check_reference(challenge, data, reference.summary.get("name", "reference"), files)
    remember(reference, loaded, len(data) + sum(len(blob) for blob, _ in files.values()))
    return loaded


def read_files(reference: Reference) -> tuple[bytes, ExtraFiles]:
    """The bytes of a reference version's gold and of its extra files (by the task's name:
    bytes and original name), each checked against its recorded sha256 (``OSError`` else)."""
    data = _read(reference.file, reference.sha256, f"reference {reference.pk}")
    files = {
        f.name: (_read(f.file, f.sha256, f"reference file {f.pk}"), f.original_name)
        for f in reference.files.all()
    }
    return data, files


def remember(reference: Reference, loaded: Any, size: int) -> None:
    """Keep ``loaded`` as the loaded form of ``reference`` (just checked, so not read again),
    whose files hold ``size`` bytes; the least recently used go while the kept ones' files
    add up to more than the limit (the newest always stays)."""
    key = _key(reference.condition.phase.challenge, reference)
    limit = settings.REFERENCE_CACHE_MB * 1024 * 1024
    with _cache_lock:
        _cache[key] = (loaded, size)
        _cache.move_to_end(key)
        while len(_cache) > 1 and sum(n for _, n in _cache.values()) > limit:
            _cache.popitem(last=False)


def cached_references() -> int:
    """How many loaded references this process keeps."""
    with _cache_lock:
        return len(_cache)


def clear_reference_cache() -> None:
    with _cache_lock:
        _cache.clear()
