"""Worker liveness. A running Celery worker writes a heartbeat row (``WorkerHeartbeat``) at
most every ``INTERVAL`` seconds, from Celery's own heartbeat (sent every 2 seconds while the
worker's consumer runs); a worker is alive while its row is younger than ``STALE``. The
organiser dashboard and ``/readyz`` read ``alive_workers``."""

from __future__ import annotations

import datetime as dt
import logging
import time
from typing import Any

from celery.signals import heartbeat_sent, worker_ready
from django.db import close_old_connections
from django.utils import timezone

log = logging.getLogger(__name__)

#: seconds between two writes of one worker's heartbeat
INTERVAL = 10.0
#: a worker whose heartbeat is older than this is taken for stopped
STALE = dt.timedelta(seconds=60)

_last_beat = 0.0


def beat(hostname: str, now: dt.datetime | None = None) -> None:
    """Record that the worker ``hostname`` is alive now."""
    from leaderboard.operations.models import WorkerHeartbeat

    WorkerHeartbeat.objects.update_or_create(
        hostname=hostname, defaults={"seen_at": now or timezone.now()}
    )


def alive_workers(now: dt.datetime | None = None) -> list[Any]:
    """The workers whose heartbeat is younger than ``STALE``, newest first."""
    from leaderboard.operations.models import WorkerHeartbeat

    now = now or timezone.now()
    return list(WorkerHeartbeat.objects.filter(seen_at__gte=now - STALE).order_by("-seen_at"))


def last_heartbeat() -> dt.datetime | None:
    from leaderboard.operations.models import WorkerHeartbeat

    row = WorkerHeartbeat.objects.order_by("-seen_at").first()
    return row.seen_at if row is not None else None


def _hostname(sender: Any) -> str:
    for holder in (sender, getattr(sender, "consumer", None), getattr(sender, "eventer", None)):
        name = getattr(holder, "hostname", None)
        if name:
            return str(name)
    return "worker"


@worker_ready.connect
def _ready(sender: Any = None, **kwargs: Any) -> None:
    _record(_hostname(sender), force=True)


@heartbeat_sent.connect
def _heartbeat(sender: Any = None, **kwargs: Any) -> None:
    _record(_hostname(sender))


def _record(hostname: str, *, force: bool = False) -> None:
    global _last_beat
    if not force and time.monotonic() - _last_beat < INTERVAL:
        return
    _last_beat = time.monotonic()
    try:
        close_old_connections()
        beat(hostname)
    except Exception:
        # A database outage must not stop the worker; the stale heartbeat shows it.
        log.exception("could not record the worker heartbeat")
