"""Challenge workflows: adding reference versions and making an older one active again.

Both change what every scored submission of the condition should be scored against; their
callers re-score (``submissions.services.rescore_all``)."""

from __future__ import annotations

from django.core.files.base import ContentFile
from django.db import transaction

from leaderboard.challenges.models import Condition, Phase, Reference, ReferenceFile
from leaderboard.challenges.references import ExtraFiles, check_reference, remember, summarise
from leaderboard.storage import private_storage, random_name, sha256_of


def add_reference(
    condition: Condition,
    data: bytes,
    name: str,
    files: ExtraFiles | None = None,
    *,
    active: bool = True,
) -> Reference:
    """Validate ``data`` (and the task's extra ``files``, e.g. ``{"schema": (bytes, name)}``)
    with the scorer and make it the condition's active reference; with ``active=False`` it
    is only stored, for the organiser to review its impact
    (``submissions.impact.reference_impact``) and activate it (``activate_reference``).

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
            if active:
                condition.references.filter(active=True).update(active=False)
            reference = Reference.objects.create(
                condition=condition,
                file=stored,
                sha256=sha256_of(data),
                summary=summary,
                active=active,
            )
            for key, (path, original) in extra.items():
                ReferenceFile.objects.create(
                    reference=reference,
                    name=key,
                    file=path,
                    original_name=original,
                    sha256=sha256_of(files[key][0]),
                )
            Phase.changed(condition.phase_id)
    except BaseException:
        for path in [stored, *(p for p, _ in extra.values())]:
            private_storage().delete(path)
        raise
    remember(reference, loaded, len(data) + sum(len(blob) for blob, _ in files.values()))
    return reference


def activate_reference(reference: Reference) -> None:
    """Make a stored version the active one: a new one after its impact was reviewed, or an
    older one again (for example after a mistaken upload). Every version stays stored."""
    with transaction.atomic():
        Condition.objects.select_for_update().get(pk=reference.condition_id)
        Reference.objects.filter(condition_id=reference.condition_id, active=True).update(
            active=False
        )
        Reference.objects.filter(pk=reference.pk).update(active=True)
        Phase.changed(reference.condition.phase_id)
