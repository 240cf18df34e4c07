"""Celery tasks: thin wrappers that take primary keys and call the submission services."""

from __future__ import annotations

import logging

from celery import shared_task

from leaderboard.submissions import services
from leaderboard.submissions.queue import NOTIFY_TEAM, SCORE_SUBMISSION
from leaderboard.submissions.services.notify import notify_team as mail_team

log = logging.getLogger(__name__)

#: Seconds before retry n (0-based) of a transient failure; capped.
RETRY_BACKOFF = (5, 30, 120, 300)


@shared_task(
    bind=True, name=SCORE_SUBMISSION, acks_late=True, reject_on_worker_lost=True, max_retries=None
)
def score_submission(self, submission_id: int) -> str:  # type: ignore[no-untyped-def]
    """Score one submission. Safe to deliver twice: only the delivery that claims it works.

    The number of tries is bounded by the submission's ``attempts`` column (checked by the
    service), not by Celery's retry counter, so redeliveries and reaper re-queues count too.
    """
    try:
        return services.run_scoring(submission_id)
    except services.TransientScoringError as exc:
        countdown = RETRY_BACKOFF[min(self.request.retries, len(RETRY_BACKOFF) - 1)]
        raise self.retry(exc=exc, countdown=countdown) from exc


@shared_task(acks_late=True)
def reap_expired_leases() -> list[int]:
    """Periodic (beat): give back submissions whose worker died while scoring."""
    return services.reap_expired_leases()


#: Seconds before each retry of a mail the server did not take; after the last, it is dropped.
NOTIFY_BACKOFF = (30, 120, 600, 1800)


@shared_task(
    bind=True,
    name=NOTIFY_TEAM,
    acks_late=True,
    max_retries=len(NOTIFY_BACKOFF),
    soft_time_limit=60,
    time_limit=90,
)
def notify_team(self, submission_id: int) -> int:  # type: ignore[no-untyped-def]
    """Mail the team a submission's outcome (scored or failed), apart from the scoring, so a
    slow or failing mail server delays nothing and loses nothing stored. Each attempt waits at
    most EMAIL_TIMEOUT for the server; a failed attempt is retried with back-off."""
    try:
        return mail_team(submission_id)
    except OSError as exc:
        retries = self.request.retries
        if retries >= len(NOTIFY_BACKOFF):
            log.exception("gave up mailing the team of submission %s", submission_id)
            return 0
        log.warning("mailing the team of submission %s failed, retrying: %r", submission_id, exc)
        raise self.retry(exc=exc, countdown=NOTIFY_BACKOFF[retries]) from exc
