"""Sending the registration mail tasks (``teams.tasks``) by their names, once the change
commits, as ``submissions.queue`` does: an unreachable broker loses the mail only, never the
registration or the decision."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction

from leaderboard.celery import app

log = logging.getLogger(__name__)

#: The name of ``leaderboard.teams.tasks.mail_pending``.
MAIL_PENDING = "leaderboard.teams.tasks.mail_pending"
#: The name of ``leaderboard.teams.tasks.mail_decision``.
MAIL_DECISION = "leaderboard.teams.tasks.mail_decision"


def _send(name: str, participation_id: int) -> None:
    try:
        app.send_task(name, args=[participation_id], queue=settings.CELERY_TASK_DEFAULT_QUEUE)
    except Exception:
        log.exception("could not send the task %s", name)


def enqueue_pending(participation_id: int) -> None:
    """Mail the organisers about a registration waiting for them, after the commit."""
    transaction.on_commit(lambda: _send(MAIL_PENDING, participation_id))


def enqueue_decision(participation_id: int) -> None:
    """Mail the team the organisers' decision on its registration, after the commit."""
    transaction.on_commit(lambda: _send(MAIL_DECISION, participation_id))
