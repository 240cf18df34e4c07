"""Challenge workflows: adding reference versions and reading them back, parsed and cached."""

from __future__ import annotations

import threading
from collections import OrderedDict

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile
from django.db import transaction

import scoring
from leaderboard.challenges.models import Challenge, Condition, Phase, Reference
from leaderboard.storage import private_storage, random_name, sha256_of

#: Parsed references kept per process. A DSTC11 test gold is ~10 MB parsed; a handful of
#: conditions across the open phases fits easily, and a new version has a new sha256.
REFERENCE_CACHE_SIZE = 16

_cache: OrderedDict[str, scoring.Reference] = OrderedDict()
_cache_lock = threading.Lock()


def add_reference(condition: Condition, data: bytes, name: str) -> Reference:
    """Validate ``data`` with the scorer and make it the condition's active reference.

    The previous version stays stored and linked to its Results; it is only deactivated.
    Raises ``scoring.InvalidFile`` (participant-safe message) when the file is malformed.
    """
    parsed = scoring.load_reference(data, name)
    summary = parsed.summary()
    stored = private_storage().save(random_name("references"), ContentFile(data))
    try:
        with transaction.atomic():
            # Lock the condition so two uploads cannot both end up active.
            Condition.objects.select_for_update().get(pk=condition.pk)
            condition.references.filter(active=True).update(active=False)
            reference = Reference.objects.create(
                condition=condition,
                file=stored,
                sha256=parsed.sha256,
                summary={
                    "dialogues": summary.dialogues,
                    "turns": summary.turns,
                    "slot_values": summary.slot_values,
                    "slots": list(summary.slots),
                    "format": summary.format,
                    "name": name,
                },
                active=True,
            )
    except BaseException:
        private_storage().delete(stored)
        raise
    _remember(parsed)
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


def parsed_reference(reference: Reference) -> scoring.Reference:
    """The scorer's view of a stored reference, read once per process per sha256."""
    with _cache_lock:
        cached = _cache.get(reference.sha256)
        if cached is not None:
            _cache.move_to_end(reference.sha256)
            return cached
    with reference.file.open("rb") as handle:
        data = handle.read()
    if sha256_of(data) != reference.sha256:
        # Storage corruption or a hand-edited file: never score against a different gold.
        raise OSError(f"reference {reference.pk} does not match its recorded sha256")
    parsed = scoring.load_reference(data, reference.summary.get("name", "reference"))
    _remember(parsed)
    return parsed


def _remember(parsed: scoring.Reference) -> None:
    with _cache_lock:
        _cache[parsed.sha256] = parsed
        _cache.move_to_end(parsed.sha256)
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
