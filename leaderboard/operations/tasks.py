"""The operations' periodic task: the scheduler's heartbeat."""

from __future__ import annotations

from celery import shared_task

from leaderboard.operations import heartbeat

#: The name beat's schedule sends it by (settings.CELERY_BEAT_SCHEDULE).
SCHEDULER_HEARTBEAT = "leaderboard.operations.tasks.scheduler_heartbeat"


@shared_task(name=SCHEDULER_HEARTBEAT, ignore_result=True, expires=60)
def scheduler_heartbeat() -> None:
    """Periodic (beat): record that the scheduler sent this task just now."""
    heartbeat.scheduler_beat()
