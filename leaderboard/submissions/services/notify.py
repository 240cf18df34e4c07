"""E-mail to a team when its submission reaches an outcome it has not been told about: the body
of the ``notify_team`` task, which the services send after the commit
(``leaderboard.celery.send``).

One mail per change the team cares about: the first outcome of an upload (scored, scored but
not on every condition, failed, or not accepted: a file the scorer refused), and a later
change of it (a failed submission scored after all, a condition refused by a new reference
version, then scored again). An organiser's
re-score that ends where the team already is sends nothing. Members who turned submission mail
off on their profile get none. Links are absolute, on the ``SITE_URL`` setting."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import send_mail
from django.db.models import Q
from django.urls import reverse

from leaderboard.submissions.models import Submission

OUTCOMES = (Submission.Status.SCORED, Submission.Status.FAILED, Submission.Status.INVALID)


#: what a scored submission with a refused condition is told as (see ``outcome``)
PARTIAL = "scored-partial"


def outcome(submission: Submission) -> str:
    """What the team is told: ``scored``, ``scored-partial`` (some condition refused),
    ``failed`` or ``invalid``."""
    if submission.status == Submission.Status.SCORED and submission.error:
        return PARTIAL
    return str(submission.status)


def absolute(path: str) -> str:
    """``path`` on the site's public address (``SITE_URL``)."""
    return f"{settings.SITE_URL}{path}"


def notify_team(submission_id: int) -> int:
    """Mail every member of the submission's team who wants it the outcome, when the team has
    not been told it yet; returns the messages sent.

    No score is in the message (a hidden phase's numbers stay on the site, behind its rules);
    a failure carries the participant-safe error. The outcome is marked told before sending
    (so two deliveries cannot both mail) and unmarked when the mail server fails
    (``OSError``, within ``EMAIL_TIMEOUT``), which is raised for the task to retry."""
    submission = (
        Submission.objects.select_related("team", "phase__challenge")
        .filter(pk=submission_id)
        .first()
    )
    if submission is None or submission.status not in OUTCOMES:
        return 0
    told, now = submission.notified_status, outcome(submission)
    if told == now:
        return 0
    members = submission.team.members.exclude(email="").exclude(
        Q(mail_preference__submission_mail=False)
    )
    emails = sorted(set(members.values_list("email", flat=True)))
    mark = Submission.objects.filter(pk=submission.pk, notified_status=told)
    if not mark.update(notified_status=now):
        return 0  # another delivery is telling the team
    if not emails:
        return 0
    phase = submission.phase
    link = absolute(reverse("submissions:detail", args=[submission.pk]))
    where = f"{phase.challenge.title} / {phase.name}"
    if submission.status == Submission.Status.SCORED:
        subject = f"Submission #{submission.pk} to {where} is scored"
        body = f"{submission.method_name!r} was scored. See it at {link}"
        if now == PARTIAL:
            subject += ", but not on every condition"
            body += f"\n\nSome conditions could not be scored:\n\n{submission.error}"
    elif submission.status == Submission.Status.INVALID:
        subject = f"Submission #{submission.pk} to {where} was not accepted"
        body = (
            f"{submission.method_name!r} was not accepted, and it does not count against your "
            f"quota:\n\n{submission.error}\n\n{link}"
        )
    else:
        subject = f"Submission #{submission.pk} to {where} failed"
        body = f"{submission.method_name!r} could not be scored:\n\n{submission.error}\n\n{link}"
    body += (
        "\n\nYou get this because you are in the team. To stop these messages, untick "
        f"'E-mail me about my teams' on {absolute(reverse('accounts:profile'))}"
    )
    try:
        return send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, emails)
    except OSError:
        Submission.objects.filter(pk=submission.pk, notified_status=now).update(
            notified_status=told
        )
        raise
