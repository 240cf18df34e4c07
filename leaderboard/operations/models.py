"""Worker heartbeats: each Celery worker writes when it was last alive."""

from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    """One row per worker (its Celery host name), ``seen_at`` moved every
    ``heartbeat.INTERVAL`` seconds while the worker runs (``operations.heartbeat``)."""

    hostname = models.CharField(max_length=255, unique=True)
    seen_at = models.DateTimeField()

    class Meta:
        ordering = ["hostname"]

    def __str__(self) -> str:
        return f"{self.hostname} @ {self.seen_at:%Y-%m-%d %H:%M:%S}"


class SchedulerHeartbeat(models.Model):
    """The scheduler's (beat's) liveness: one row, ``seen_at`` written by beat's own periodic
    task (``operations.tasks.scheduler_heartbeat``) each time a worker runs it, and by nothing
    else; ``/readyz``, the organisers' dashboard and the workers' log read it."""

    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"scheduler @ {self.seen_at:%Y-%m-%d %H:%M:%S}"
