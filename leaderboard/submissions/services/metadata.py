"""A team's members edit what they said about a run's method after the upload: its name,
description and URL. The scores are not touched; the change is dated on the run
(``Submission.edited_at``, shown as "edited"), written to the audit log the organisers read,
and the phase's boards are built again, since they show the method."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from leaderboard.challenges import audit
from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Submission

#: the fields a team may edit after the upload
EDITABLE = ("method_name", "method_description", "url")


class EditError(ValueError):
    """An edit that cannot be made; the message is safe to show the user."""


def edit_method(submission: Submission, user: User, **given: str) -> bool:
    """Set the fields of ``EDITABLE`` named in ``given`` (already validated as at upload:
    ``forms.MethodForm``) on ``submission``; whether anything changed. Only a member of its
    team may; a baseline is the organisers' (edited in the admin)."""
    unknown = set(given) - set(EDITABLE)
    if unknown:
        raise ValueError(f"not editable: {sorted(unknown)}")
    if not submission.team.memberships.filter(user=user).exists():
        raise EditError("Only a member of the team can edit its method.")
    if submission.is_baseline:
        raise EditError("A baseline's method is edited by the organisers.")
    with transaction.atomic():
        row = Submission.objects.select_for_update().get(pk=submission.pk)
        before = {name: getattr(row, name) for name in given}
        changed = {name: value for name, value in given.items() if before[name] != value}
        if not changed:
            return False
        now = timezone.now()
        Submission.objects.filter(pk=row.pk).update(**changed, edited_at=now)
        phase = submission.phase
        audit.record(
            phase.challenge_id, "method-edited", actor=user, phase=phase,
            subject=f"{submission.team.name}: submission {submission.pk}",
            before={name: before[name] for name in changed}, after=changed,
        )  # fmt: skip
        Phase.changed(phase.pk)
    for name, value in changed.items():
        setattr(submission, name, value)
    submission.edited_at = now
    return True
