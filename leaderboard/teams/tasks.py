"""Celery tasks of the teams app: the registration mail (``teams.notify``), retried with
back-off when the mail server does not take it."""

from __future__ import annotations

import logging

from celery import shared_task

from leaderboard.teams import notify
from leaderboard.teams.queue import MAIL_DECISION, MAIL_PENDING

log = logging.getLogger(__name__)

#: Seconds before each retry of a mail the server did not take; after the last, it is dropped.
BACKOFF = (30, 120, 600, 1800)


def _retrying(task, send, participation_id: int) -> int:  # type: ignore[no-untyped-def]
    try:
        return int(send(participation_id))
    except OSError as exc:
        retries = task.request.retries
        if retries >= len(BACKOFF):
            log.exception("gave up the registration mail of %s", participation_id)
            return 0
        raise task.retry(exc=exc, countdown=BACKOFF[retries]) from exc


@shared_task(bind=True, name=MAIL_PENDING, acks_late=True, max_retries=len(BACKOFF),
             soft_time_limit=60, time_limit=90)  # fmt: skip
def mail_pending(self, participation_id: int) -> int:  # type: ignore[no-untyped-def]
    """Mail the challenge's organisers about a registration waiting for them."""
    return _retrying(self, notify.mail_pending, participation_id)


@shared_task(bind=True, name=MAIL_DECISION, acks_late=True, max_retries=len(BACKOFF),
             soft_time_limit=60, time_limit=90)  # fmt: skip
def mail_decision(self, participation_id: int) -> int:  # type: ignore[no-untyped-def]
    """Mail a team's members the decision on its registration."""
    return _retrying(self, notify.mail_decision, participation_id)
