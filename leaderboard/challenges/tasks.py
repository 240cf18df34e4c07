"""Celery tasks of the challenges: thin wrappers over ``services`` and ``announcements``."""

from __future__ import annotations

from celery import shared_task

from leaderboard.background import (
    CLOSE_PHASES,
    MAIL_ANNOUNCEMENT,
    MAIL_ANNOUNCEMENT_TO,
    options,
)
from leaderboard.challenges import announcements, services


@shared_task(**options(CLOSE_PHASES))
def close_phases() -> list[int]:
    """Periodic (beat): record the close of every phase whose ``closes_at`` has passed
    (``services.close_phases``); the private boards that follow are built because the phases'
    versions moved."""
    return services.close_phases()


@shared_task(**options(MAIL_ANNOUNCEMENT))
def mail_announcement(announcement_id: int) -> int:
    """Send one ``mail_announcement_to`` for each member of a registered team."""
    return announcements.mail_all(announcement_id)


@shared_task(**options(MAIL_ANNOUNCEMENT_TO))
def mail_announcement_to(announcement_id: int, user_id: int) -> int:
    """Mail an announcement to one person, addressed to them alone."""
    return announcements.mail_one(announcement_id, user_id)
