"""Celery tasks: thin wrappers that take primary keys and call the submission services."""

from __future__ import annotations

import logging
import random
import time

from celery import shared_task
from django.conf import settings

from leaderboard.submissions import services
from leaderboard.submissions.queue import NOTIFY_TEAM, SCORE_SUBMISSION
from leaderboard.submissions.services.notify import notify_team as mail_team

log = logging.getLogger(__name__)


def backoff(retries: int) -> float:
    """Seconds before retry ``retries`` (0-based) of a run that met a fault of the site:
    doubling from 2 s up to ``SCORING_RETRY_MAX_DELAY``, each drawn at random from its upper
    half so that runs stopped by the same fault do not all come back at once."""
    ceiling = min(2.0 * 2.0 ** min(retries, 30), float(settings.SCORING_RETRY_MAX_DELAY))
    return random.uniform(ceiling / 2, ceiling)


@shared_task(
    bind=True, name=SCORE_SUBMISSION, acks_late=True, reject_on_worker_lost=True, max_retries=None
)
def score_submission(self, submission_id: int, since: float | None = None) -> str:  # type: ignore[no-untyped-def]
    """Score one submission. Safe to deliver twice: only the delivery that claims it works.

    A fault of the site is retried with ``backoff`` for as long as it lasts, up to
    ``SCORING_RETRY_FOR_SECONDS`` from the first fault (``since``, carried by the retries);
    the tries a submission may use are counted by its ``attempts`` column (service), not by
    Celery's retry counter, so redeliveries and the reaper's re-sends count too.
    """
    now = time.time()
    since = since if since is not None else now
    countdown = backoff(self.request.retries)
    try:
        return services.run_scoring(
            submission_id,
            retry_in=countdown,
            give_up=now - since >= settings.SCORING_RETRY_FOR_SECONDS,
        )
    except services.TransientScoringError as exc:
        raise self.retry(exc=exc, countdown=countdown, kwargs={"since": since}) from exc


@shared_task(acks_late=True)
def reap_expired_leases() -> list[int]:
    """Periodic (beat): give back submissions whose worker died while scoring, and send again
    the task of a queued one whose message was lost."""
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
