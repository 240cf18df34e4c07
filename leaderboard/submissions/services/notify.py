"""E-mail to a team when its submission is scored or fails (sent after the commit)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from leaderboard.submissions.models import Submission

log = logging.getLogger(__name__)


def notify_team(submission_id: int) -> int:
    """Mail every member of the submission's team its outcome; returns the messages sent.

    No score is in the message (a hidden phase's numbers stay on the site, behind its rules);
    a failure carries the participant-safe error. A mail server problem is logged, never
    raised: the Result is already stored."""
    submission = (
        Submission.objects.select_related("team", "phase__challenge")
        .filter(pk=submission_id)
        .first()
    )
    if submission is None or submission.status not in (
        Submission.Status.SCORED,
        Submission.Status.FAILED,
    ):
        return 0
    emails = sorted({e for e in submission.team.members.values_list("email", flat=True) if e})
    if not emails:
        return 0
    phase = submission.phase
    path = reverse("submissions:detail", args=[submission.pk])
    if submission.status == Submission.Status.SCORED:
        subject = f"Submission #{submission.pk} to {phase.challenge.title} / {phase.name} is scored"
        body = f"{submission.method_name!r} was scored. See it at {path}."
    else:
        subject = f"Submission #{submission.pk} to {phase.challenge.title} / {phase.name} failed"
        body = f"{submission.method_name!r} could not be scored:\n\n{submission.error}\n\n{path}"
    try:
        return send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, emails)
    except OSError:
        log.exception("could not mail the team of submission %s", submission_id)
        return 0
