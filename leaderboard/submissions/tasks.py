"""Celery tasks: thin wrappers that take primary keys and call the submission services."""

from __future__ import annotations

from celery import shared_task

from leaderboard.submissions import services
from leaderboard.submissions.queue import SCORE_SUBMISSION

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
