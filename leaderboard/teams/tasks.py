"""Celery tasks of the teams app: the registration mail (``teams.notify``) and the mail of
announcements (``teams.announcement_mail``). Their queue and
retries are declared in ``leaderboard.background``."""

from __future__ import annotations

from celery import shared_task

from leaderboard.background import (
    MAIL_ANNOUNCEMENT,
    MAIL_ANNOUNCEMENT_TO,
    MAIL_DECISION,
    MAIL_PENDING,
    options,
)
from leaderboard.teams import announcement_mail, notify


@shared_task(**options(MAIL_PENDING))
def mail_pending(participation_id: int) -> int:
    """Mail the challenge's organisers about a registration waiting for them."""
    return int(notify.mail_pending(participation_id))


@shared_task(**options(MAIL_DECISION))
def mail_decision(participation_id: int) -> int:
    """Mail a team's members the decision on its registration."""
    return int(notify.mail_decision(participation_id))


@shared_task(**options(MAIL_ANNOUNCEMENT))
def mail_announcement(announcement_id: int) -> int:
    """Send one ``mail_announcement_to`` for each member of an approved team."""
    return announcement_mail.mail_all(announcement_id)


@shared_task(**options(MAIL_ANNOUNCEMENT_TO))
def mail_announcement_to(announcement_id: int, user_id: int) -> int:
    """Mail an announcement to one person, addressed to them alone."""
    return announcement_mail.mail_one(announcement_id, user_id)
