"""Sending the scoring and notification tasks to the workers.

The task is sent by its registered name, so the services that queue work need not import the
task module (which imports them to do the work)."""

from __future__ import annotations

import logging

from django.conf import settings

from leaderboard.celery import app, mail_queue

log = logging.getLogger(__name__)

#: The name of ``leaderboard.submissions.tasks.score_submission``.
SCORE_SUBMISSION = "leaderboard.submissions.tasks.score_submission"
#: The name of ``leaderboard.submissions.tasks.notify_team``.
NOTIFY_TEAM = "leaderboard.submissions.tasks.notify_team"


def enqueue_scoring(submission_id: int, *, rescore: bool = False) -> None:
    """Send the scoring task; call it from ``transaction.on_commit`` only. A re-score goes to
    the re-score queue when one is set, so a worker of its own takes it and new submissions
    never wait behind a phase's re-scoring."""
    # The queue is read at call time so tests (and operators) can route to a dedicated queue.
    name = settings.CELERY_TASK_DEFAULT_QUEUE
    if rescore and settings.CELERY_RESCORE_QUEUE:
        name = settings.CELERY_RESCORE_QUEUE
    try:
        app.send_task(SCORE_SUBMISSION, args=[submission_id], queue=name)
    except Exception:
        # The row is committed (stored, charged, queued) when this runs: an unreachable broker
        # must not turn the upload into a server error, nor roll back its stored files. The
        # reaper sends the task again after SCORING_RESEND_AFTER_SECONDS.
        log.exception("could not send the scoring task of submission %s", submission_id)


def enqueue_notification(submission_id: int) -> None:
    """Send the task that mails the team a submission's outcome, on the mail queue (a worker of
    its own: a hung mail server holds no scoring process); call it from
    ``transaction.on_commit`` only, so the mail never announces what was rolled back."""
    try:
        app.send_task(NOTIFY_TEAM, args=[submission_id], queue=mail_queue())
    except Exception:
        # The outcome is stored and shown on the site; only the mail is lost.
        log.exception("could not send the notification task of submission %s", submission_id)
