"""Celery tasks: thin wrappers that take primary keys and call the submission services. Their
queues and retries are declared in ``leaderboard.background``."""

from __future__ import annotations

import time
from typing import Any

from celery import Task, shared_task
from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings

from leaderboard.background import (
    NOTIFY_TEAM,
    REAP_EXPIRED_LEASES,
    RESCORE_SUBMISSION,
    SCORE_SUBMISSION,
    options,
)
from leaderboard.submissions import services
from leaderboard.submissions.services.notify import notify_team as mail_team


def backoff(task: Any, retries: int) -> float:  # a Task: its retry options are not in the stubs
    """Seconds before retry ``retries`` (0-based) of a run that met a fault of the site, by
    the task's declared policy and Celery's own rule (``retry_backoff`` doubled each retry up
    to ``retry_backoff_max``, drawn at random up to that ceiling with ``retry_jitter``), so
    that runs stopped by the same fault do not all come back at once."""
    return float(
        get_exponential_backoff_interval(
            factor=task.retry_backoff,
            retries=retries,
            maximum=task.retry_backoff_max,
            full_jitter=task.retry_jitter,
        )
    )


def _score(task: Task, submission_id: int, since: float | None) -> str:
    now = time.time()
    since = since if since is not None else now
    countdown = backoff(task, task.request.retries)
    try:
        return services.run_scoring(
            submission_id,
            retry_in=countdown,
            give_up=now - since >= settings.SCORING_RETRY_FOR_SECONDS,
        )
    except services.TransientScoringError as exc:
        raise task.retry(exc=exc, countdown=countdown, kwargs={"since": since}) from exc


@shared_task(bind=True, **options(SCORE_SUBMISSION))
def score_submission(self: Task, submission_id: int, since: float | None = None) -> str:
    """Score one submission. Safe to deliver twice: only the delivery that claims it works.

    A fault of the site is retried (``backoff``) for as long as it lasts, up to
    ``SCORING_RETRY_FOR_SECONDS`` from the first fault (``since``, carried by the retries);
    the tries a submission may use are counted by its ``attempts`` column (service), not by
    Celery's retry counter, so redeliveries and the reaper's re-sends count too.
    """
    return _score(self, submission_id, since)


@shared_task(bind=True, **options(RESCORE_SUBMISSION))
def rescore_submission(self: Task, submission_id: int, since: float | None = None) -> str:
    """``score_submission`` for a re-score, on the re-score queue."""
    return _score(self, submission_id, since)


@shared_task(**options(REAP_EXPIRED_LEASES))
def reap_expired_leases() -> list[int]:
    """Periodic (beat): give back submissions whose worker died while scoring, and send again
    the task of a queued one whose message was lost."""
    return services.reap_expired_leases()


@shared_task(**options(NOTIFY_TEAM))
def notify_team(submission_id: int) -> int:
    """Mail the team a submission's outcome (scored or failed), apart from the scoring, so a
    slow or failing mail server delays nothing and loses nothing stored."""
    return mail_team(submission_id)
