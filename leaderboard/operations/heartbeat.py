"""Worker and scheduler liveness. A running Celery worker writes a heartbeat row
(``WorkerHeartbeat``) every ``INTERVAL`` seconds from a thread of its own, started when the
worker is ready and stopped when it shuts down (so it beats whatever the worker's options,
``--without-heartbeat`` included); a worker is alive while its row is younger than ``STALE``.
The organiser dashboard and ``/readyz`` read ``alive_workers``.

Each beat opens its own database connection and closes it, and a fork of the worker (a new
pool process) waits for a beat in progress: a pool process never inherits the heartbeat's
connection.

The scheduler (Celery beat, one per site) is alive while its own periodic task keeps its row
(``SchedulerHeartbeat``) younger than ``scheduler_stale()``; a worker's heartbeat thread logs a
warning once a minute while it is not ("the scheduler has not run for N minutes").
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import threading
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import connection
from django.utils import timezone

log = logging.getLogger(__name__)

#: seconds between two writes of one worker's heartbeat
INTERVAL = 10.0
#: a worker whose heartbeat is older than this is taken for stopped
STALE = dt.timedelta(seconds=60)

_stop = threading.Event()
#: held during a beat; a fork waits for it (``_start``)
_beating = threading.Lock()
_fork_hook = False


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


def scheduler_stale() -> dt.timedelta:
    """How old the scheduler's row may be: four of its intervals (a minute by default), so a
    task that waited behind others in the queue is not taken for a stopped scheduler."""
    return dt.timedelta(seconds=4 * settings.REAPER_INTERVAL)


def scheduler_beat(now: dt.datetime | None = None) -> None:
    """Record that the scheduler ran now (its periodic task only)."""
    from leaderboard.operations.models import SchedulerHeartbeat

    SchedulerHeartbeat.objects.update_or_create(pk=1, defaults={"seen_at": now or timezone.now()})


def scheduler_silence(now: dt.datetime | None = None) -> tuple[bool, dt.timedelta | None]:
    """Whether the scheduler is silent (its row older than ``scheduler_stale()``, or none: it
    never ran), and for how long (None when it never ran)."""
    from leaderboard.operations.models import SchedulerHeartbeat

    seen = SchedulerHeartbeat.objects.filter(pk=1).values_list("seen_at", flat=True).first()
    if seen is None:
        return True, None
    silent = (now or timezone.now()) - seen
    return silent > scheduler_stale(), silent


def silence_words(silent: dt.timedelta | None) -> str:
    """``the scheduler has not run for N minutes`` (or ``has never run``), as the dashboard,
    ``/readyz``'s log and the workers' log say it."""
    if silent is None:
        return "the scheduler has never run"
    minutes = int(silent.total_seconds() // 60)
    return f"the scheduler has not run for {minutes} minute{'' if minutes == 1 else 's'}"


def record(hostname: str) -> None:
    """One heartbeat; a database that does not answer is logged, never raised (the stale row
    then shows the trouble)."""
    try:
        beat(hostname)
    except Exception:
        log.exception("could not record the worker heartbeat")


def warn_of_a_silent_scheduler() -> None:
    """Log a warning when the scheduler has not run for longer than it should."""
    try:
        stopped, silent = scheduler_silence()
    except Exception:
        return  # the database does not answer: the worker's own beat logged it
    if stopped:
        log.warning("%s: queued work is not re-sent and leases are not reaped (run one beat)",
                    silence_words(silent))  # fmt: skip


def run(hostname: str, stop: threading.Event) -> None:
    """Beat every ``INTERVAL`` seconds until ``stop`` is set; once a minute, say so in the log
    when the scheduler has not run."""
    beats = 0
    while True:
        with _beating:
            try:
                record(hostname)
                if beats % int(60 / INTERVAL) == 0:
                    warn_of_a_silent_scheduler()
            finally:
                connection.close()  # this thread's own connection, never kept open
        beats += 1
        if stop.wait(INTERVAL):
            return


@worker_ready.connect
def _start(sender: Any = None, **kwargs: Any) -> None:
    global _fork_hook
    hostname = str(getattr(sender, "hostname", "") or "worker")
    if not _fork_hook:
        os.register_at_fork(
            before=_beating.acquire,
            after_in_parent=_beating.release,
            after_in_child=_beating.release,
        )
        _fork_hook = True
    _stop.clear()
    threading.Thread(
        target=run, args=(hostname, _stop), name="trackboard-heartbeat", daemon=True
    ).start()


@worker_shutdown.connect
def _shutdown(sender: Any = None, **kwargs: Any) -> None:
    _stop.set()
