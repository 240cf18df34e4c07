"""Celery tasks of the teams app: the registration mail (``teams.notify``). Their queue and
retries are declared in ``leaderboard.background``."""

from __future__ import annotations

from celery import shared_task

from leaderboard.background import MAIL_DECISION, MAIL_PENDING, options
from leaderboard.teams import notify


@shared_task(**options(MAIL_PENDING))
def mail_pending(participation_id: int) -> int:
    """Mail the challenge's organisers about a registration waiting for them."""
    return int(notify.mail_pending(participation_id))


@shared_task(**options(MAIL_DECISION))
def mail_decision(participation_id: int) -> int:
    """Mail a team's members the decision on its registration."""
    return int(notify.mail_decision(participation_id))
