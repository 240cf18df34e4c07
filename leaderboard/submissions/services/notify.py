"""E-mail to a team when its submission is scored or fails: the body of the ``notify_team``
task, which the services send after the commit (``queue.enqueue_notification``)."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from leaderboard.submissions.models import Submission


def notify_team(submission_id: int) -> int:
    """Mail every member of the submission's team its outcome; returns the messages sent.

    No score is in the message (a hidden phase's numbers stay on the site, behind its rules);
    a failure carries the participant-safe error. A mail server problem (``OSError``, within
    ``EMAIL_TIMEOUT``) is raised for the task to retry; the outcome is already stored."""
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
    return send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, emails)
