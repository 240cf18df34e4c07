"""Challenge workflows: adding reference versions, making an older one active again,
opening a post-challenge phase after a reveal, and recording the phases' closes.

Both change what every scored submission of the condition should be scored against; their
callers re-score (``submissions.services.rescore_all``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from leaderboard.challenges import audit
from leaderboard.challenges.models import Condition, Phase, Reference, ReferenceFile
from leaderboard.challenges.references import (
    ExtraFiles,
    check_reference,
    read_files,
    remember,
    summarise,
)
from leaderboard.storage import private_storage, random_name, sha256_of


def add_reference(
    condition: Condition,
    data: bytes,
    name: str,
    files: ExtraFiles | None = None,
    *,
    active: bool = True,
    actor: Any = None,
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
            audit.record(
                challenge, "reference-added", actor=actor, phase=condition.phase_id,
                subject=f"{condition.key}: version {reference.sha256[:12]}",
                after={"sha256": reference.sha256, "active": active,
                       "dialogues": summary.get("dialogues"), "name": name},
            )  # fmt: skip
    except BaseException:
        for path in [stored, *(p for p, _ in extra.values())]:
            private_storage().delete(path)
        raise
    remember(reference, loaded, len(data) + sum(len(blob) for blob, _ in files.values()))
    return reference


def activate_reference(reference: Reference, *, actor: Any = None) -> None:
    """Make a stored version the active one: a new one after its impact was reviewed, or an
    older one again (for example after a mistaken upload). Every version stays stored."""
    with transaction.atomic():
        condition = (
            Condition.objects.select_for_update()
            .select_related("phase")
            .get(pk=reference.condition_id)
        )
        previous = Reference.objects.filter(condition=condition, active=True).first()
        Reference.objects.filter(condition_id=reference.condition_id, active=True).update(
            active=False
        )
        audit.record(
            condition.phase.challenge_id, "reference-activated", actor=actor,
            phase=condition.phase_id,
            subject=f"{condition.key}: version {reference.sha256[:12]}",
            before={"sha256": previous.sha256 if previous else None},
            after={"sha256": reference.sha256},
        )  # fmt: skip
        Reference.objects.filter(pk=reference.pk).update(active=True)
        Phase.changed(reference.condition.phase_id)


class PostChallengeError(ValueError):
    """A post-challenge phase cannot be opened; the message says why."""


def open_post_challenge(
    phase: Phase, closes_at: dt.datetime | None = None, *, actor: Any = None
) -> Phase:
    """Open a post-challenge phase after ``phase``'s reveal, for late submissions: the same
    conditions, a copy of each active reference version, results public on the whole
    reference (the reveal has published the private part), one final selection, open from
    now until ``closes_at`` (a year by default). ``phase`` itself stays closed and revealed;
    what is submitted here is ranked here only, marked post-challenge.

    Raises ``PostChallengeError`` when ``phase`` is not revealed."""
    if not phase.revealed:
        raise PostChallengeError(
            f"{phase.name} is not revealed yet; a post-challenge phase follows the reveal."
        )
    now = timezone.now()
    closes_at = closes_at or now + dt.timedelta(days=365)
    if closes_at <= now:
        raise PostChallengeError("the post-challenge phase must close in the future.")
    taken = set(phase.challenge.phases.values_list("slug", flat=True))
    slug, n = slugify(f"{phase.slug}-post"), 2
    while slug in taken:
        slug, n = slugify(f"{phase.slug}-post-{n}"), n + 1
    # Storage reads stay outside the transaction; each copy is checked as an upload is.
    copies = []
    for condition in phase.conditions.all():
        reference = condition.active_reference()
        if reference is not None:
            gold, files = read_files(reference)
            copies.append((condition, gold, str(reference.summary.get("name", "")), files))
    with transaction.atomic():
        post = Phase.objects.create(
            challenge=phase.challenge,
            name=f"{phase.name} (post-challenge)",
            slug=slug,
            order=phase.order + 1,
            opens_at=now,
            closes_at=closes_at,
            daily_quota=phase.daily_quota,
            total_quota=phase.total_quota,
            allow_partial=phase.allow_partial,
            results_visibility=Phase.Visibility.PUBLIC,
            max_final_selections=1,
            post_challenge=True,
        )
        made = {
            c.pk: Condition.objects.create(phase=post, key=c.key, label=c.label, order=c.order)
            for c in phase.conditions.all()
        }
        Phase.changed(post.pk)
        audit.record(
            phase.challenge, "post-challenge-opened", actor=actor, phase=post,
            subject=f"{post.name}, after {phase.name}",
            after={"slug": post.slug, "opens_at": post.opens_at, "closes_at": post.closes_at},
        )  # fmt: skip
    for condition, gold, name, files in copies:
        add_reference(made[condition.pk], gold, name or "reference.json", files, actor=actor)
    return post


def close_phases(now: dt.datetime | None = None) -> list[int]:
    """Record the close of every phase whose ``closes_at`` has passed and whose close is not
    recorded yet (``Phase.record_close``: ``closed`` set by a conditional UPDATE, the board's
    version moved in the same transaction); returns the phases closed. Periodic (beat's
    ``close_phases``): a second run changes nothing."""
    now = now or timezone.now()
    due = Phase.objects.filter(Phase.has_closed(now), closed=False).values_list("pk", flat=True)
    return [pk for pk in due if Phase.record_close(pk, now)]
