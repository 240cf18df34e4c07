"""Celery tasks of the challenges: thin wrappers over ``services``."""

from __future__ import annotations

from celery import shared_task

from leaderboard.background import CLOSE_PHASES, options
from leaderboard.challenges import services


@shared_task(**options(CLOSE_PHASES))
def close_phases() -> list[int]:
    """Periodic (beat): record the close of every phase whose ``closes_at`` has passed
    (``services.close_phases``); the private boards that follow are built because the phases'
    versions moved."""
    return services.close_phases()
