"""Challenge workflows: adding reference versions and reading them back, parsed and cached."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile
from django.db import transaction

import scoring
from leaderboard.challenges.models import Challenge, Condition, Phase, Reference, ReferenceFile
from leaderboard.storage import private_storage, random_name, sha256_of
from scoring.taskapi import Source

#: Loaded references kept per process. A DSTC11 test gold is ~10 MB parsed; a handful of
#: conditions across the open phases fits easily, and a new version has a new sha256.
REFERENCE_CACHE_SIZE = 16

_cache: OrderedDict[str, Any] = OrderedDict()
_cache_lock = threading.Lock()

#: extra reference files, by the task's file name: (bytes, original file name)
ExtraFiles = Mapping[str, tuple[bytes, str]]


def load_task_reference(
    task: Any, gold: Source, files: Mapping[str, Source], options: Mapping[str, str]
) -> Any:
    """The task's reference from the gold and its extra files (one place, so a test can count
    how often a worker really reads one)."""
    return task.load_reference(gold, files, options)


def check_reference(
    challenge: Challenge, data: bytes, name: str, files: ExtraFiles | None = None
) -> Any:
    """Load a reference (gold plus extra files) with the challenge's task and options.

    Raises ``scoring.ScoringError`` (participant-safe message) when a file is malformed, a
    required file (e.g. the multiwoz22 schema) is missing or the task takes no such file."""
    files = files or {}
    task = challenge.scoring_task()
    specs = {f.name: f for f in task.reference_files}
    unknown = sorted(set(files) - set(specs))
    if unknown:
        raise scoring.ScoringError(
            f"task {task.name!r} takes no reference file(s) {', '.join(unknown)}."
        )
    for spec in specs.values():
        if spec.required and spec.name not in files:
            raise scoring.ScoringError(f"task {task.name!r} needs a {spec.label} file.")
    sources = {key: Source(blob, original) for key, (blob, original) in files.items()}
    return load_task_reference(task, Source(data, name), sources, challenge.task_options())


def summarise(loaded: Any, name: str, files: ExtraFiles) -> dict[str, Any]:
    """Counts shown to organisers: dialogues, turns (and slots for dstc11), format, files."""
    gold = getattr(loaded, "gold", loaded)
    summary: dict[str, Any]
    if hasattr(gold, "summary"):
        counted = gold.summary()
        summary = {
            "dialogues": counted.dialogues,
            "turns": counted.turns,
            "slot_values": counted.slot_values,
            "slots": list(counted.slots),
            "format": counted.format,
        }
    else:
        turns = gold.turns
        summary = {
            "dialogues": len(turns),
            "turns": sum(len(t) for t in turns.values()),
            "format": gold.format,
        }
    summary["name"] = name
    if files:
        summary["files"] = {key: original for key, (_, original) in sorted(files.items())}
    return summary


def add_reference(
    condition: Condition, data: bytes, name: str, files: ExtraFiles | None = None
) -> Reference:
    """Validate ``data`` (and the task's extra ``files``, e.g. ``{"schema": (bytes, name)}``)
    with the scorer and make it the condition's active reference.

    The previous version stays stored and linked to its Results; it is only deactivated.
    Raises ``scoring.ScoringError`` (participant-safe message) when a file is malformed.
    """
    files = dict(files or {})
    challenge = condition.phase.challenge
    loaded = check_reference(challenge, data, name, files)
    summary = summarise(loaded, name, files)
    stored = private_storage().save(random_name("references"), ContentFile(data))
    extra = {
        key: (private_storage().save(random_name("references"), ContentFile(blob)), original)
        for key, (blob, original) in files.items()
    }
    try:
        with transaction.atomic():
            # Lock the condition so two uploads cannot both end up active.
            Condition.objects.select_for_update().get(pk=condition.pk)
            condition.references.filter(active=True).update(active=False)
            reference = Reference.objects.create(
                condition=condition,
                file=stored,
                sha256=sha256_of(data),
                summary=summary,
                active=True,
            )
            for key, (path, original) in extra.items():
                ReferenceFile.objects.create(
                    reference=reference,
                    name=key,
                    file=path,
                    original_name=original,
                    sha256=sha256_of(files[key][0]),
                )
    except BaseException:
        for path in [stored, *(p for p, _ in extra.values())]:
            private_storage().delete(path)
        raise
    _remember(_key(challenge, reference), loaded)
    _invalidate_rankings(condition)
    _rescore(condition)
    return reference


def activate_reference(reference: Reference) -> None:
    """Make an older version active again (for example after a mistaken upload)."""
    with transaction.atomic():
        Condition.objects.select_for_update().get(pk=reference.condition_id)
        Reference.objects.filter(condition_id=reference.condition_id, active=True).update(
            active=False
        )
        Reference.objects.filter(pk=reference.pk).update(active=True)
    _invalidate_rankings(reference.condition)
    _rescore(reference.condition)


def _rescore(condition: Condition) -> None:
    """A new active reference re-scores every scored submission with a file for it: new
    Result rows; the old ones stay, tagged with their reference and signature."""
    from leaderboard.submissions.services import rescore_all

    rescore_all(condition=condition)


def _key(challenge: Challenge, reference: Reference) -> str:
    files = ",".join(f"{f.name}:{f.sha256}" for f in reference.files.order_by("name"))
    options = ",".join(f"{k}={v}" for k, v in sorted(challenge.task_options().items()))
    return f"{challenge.task}|{reference.sha256}|{files}|{options}"


def _read(field: Any, sha256: str, what: str) -> bytes:
    with field.open("rb") as handle:
        data: bytes = handle.read()
    if sha256_of(data) != sha256:
        # Storage corruption or a hand-edited file: never score against a different gold.
        raise OSError(f"{what} does not match its recorded sha256")
    return data


def parsed_reference(reference: Reference) -> Any:
    """The task's loaded reference (gold plus extra files), read once per process per
    version and options."""
    challenge = reference.condition.phase.challenge
    key = _key(challenge, reference)
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    data = _read(reference.file, reference.sha256, f"reference {reference.pk}")
    files = {
        f.name: (_read(f.file, f.sha256, f"reference file {f.pk}"), f.original_name)
        for f in reference.files.all()
    }
    loaded = check_reference(challenge, data, reference.summary.get("name", "reference"), files)
    _remember(key, loaded)
    return loaded


def _remember(key: str, loaded: Any) -> None:
    with _cache_lock:
        _cache[key] = loaded
        _cache.move_to_end(key)
        while len(_cache) > REFERENCE_CACHE_SIZE:
            _cache.popitem(last=False)


def clear_reference_cache() -> None:
    with _cache_lock:
        _cache.clear()


def _invalidate_rankings(condition: Condition) -> None:
    from leaderboard.rankings.services import invalidate

    transaction.on_commit(lambda: invalidate(condition.phase_id))


def is_organiser(challenge: Challenge, user: AbstractBaseUser) -> bool:
    """Whether ``user`` organises ``challenge`` (being staff is not enough)."""
    return bool(user.is_authenticated) and challenge.organisers.filter(pk=user.pk).exists()


def can_see_results(phase: Phase, user: AbstractBaseUser) -> bool:
    """Whether ``user`` may see the phase's live (public-split) leaderboard."""
    from leaderboard.challenges.visibility import access

    return access(phase, user).board
