"""The operations' periodic task: the scheduler's heartbeat."""

from __future__ import annotations

from celery import shared_task

from leaderboard.background import SCHEDULER_HEARTBEAT, options
from leaderboard.operations import heartbeat


@shared_task(**options(SCHEDULER_HEARTBEAT))
def scheduler_heartbeat() -> None:
    """Periodic (beat): record that the scheduler sent this task just now."""
    heartbeat.scheduler_beat()
