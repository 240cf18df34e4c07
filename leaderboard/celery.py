"""The Celery application, configured from the ``CELERY_*`` names in settings.py and from the
declaration of background work (``leaderboard.background``: the queues a worker consumes by
default, beat's schedule), and ``send``, the one way the site sends a task."""

from __future__ import annotations

import gc
import logging
import os
from pathlib import Path
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_process_init
from django.db import connection, transaction
from kombu import Exchange, Queue

from leaderboard import background, requestids

log = logging.getLogger(__name__)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
# Scoring's linear algebra is a few matrix-vector products per result; a BLAS thread pool per
# worker process would only compete with the other workers for the cores.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

#: The folders of kombu's filesystem transport (the embedded mode's broker). kombu creates
#: none of them but the control folder, and that one only inside an existing parent.
FILE_BROKER_FOLDERS = ("data_folder_in", "data_folder_out", "processed_folder", "control_folder")

app = Celery("leaderboard")


@app.on_after_configure.connect
def _configure(sender: Celery, source: Any, **kwargs: Any) -> None:
    """Runs when a process (web, worker, beat, command) first reads the Celery configuration,
    so before it publishes to or consumes from the broker: the declared queues (what a worker
    started without ``-Q`` consumes, each bound as Celery binds a queue it creates) and beat's
    schedule; the file broker's folders."""
    source.task_queues = [Queue(name, Exchange(name), name) for name in background.queues()]
    source.beat_schedule = background.beat_schedule()
    if (source.broker_url or "").startswith("filesystem://"):
        options = source.broker_transport_options
        for key in FILE_BROKER_FOLDERS:
            Path(options[key]).mkdir(parents=True, exist_ok=True)


@worker_process_init.connect
def _freeze_what_is_loaded(**kwargs: Any) -> None:
    """A pool process, once started, leaves what it has loaded (Django, the tasks, the
    scorer's modules) out of the garbage collector's passes: the full passes that a board's
    build or a scoring triggers then look only at what the task made (without it, about a
    sixth of a 500-team board's build went to them; benchmarks/README.md)."""
    gc.freeze()


@task_prerun.connect
def _take_request_id(task: Any, **kwargs: Any) -> None:
    """The id of the request that sent this task (its message's header), current while the
    task runs: its log lines carry it, and so do the tasks it sends in turn."""
    sent = getattr(task.request, requestids.TASK_HEADER, None)
    requestids.use(sent if isinstance(sent, str) else None)


@task_postrun.connect
def _drop_request_id(**kwargs: Any) -> None:
    requestids.use(None)


app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def send(name: str, *args: object) -> None:
    """Send task ``name`` (declared in ``leaderboard.background``) with ``args`` to its queue
    once the current transaction commits, at once outside one: the task never sees a change
    that was rolled back, nor runs before the change it is about is visible. A broker that
    cannot take it costs no request an error: the failure is logged, and what the task was for
    is made good by the periodic tasks (the lease reaper re-sends a submission's scoring, the
    boards' re-send a build); only a mail is lost, and the page that asked for it says how to
    ask again. The task carries the id of the request (or task) sending it
    (``leaderboard.requestids``)."""
    if connection.in_atomic_block:
        transaction.on_commit(lambda: _publish(name, *args), robust=True)
    else:  # nothing to wait for (and no connection to ask, which may be what just failed)
        _publish(name, *args)


def _publish(name: str, *args: object) -> None:
    queue = background.queue_of(name)
    request_id = requestids.current()
    headers = {requestids.TASK_HEADER: request_id} if request_id else None
    try:
        app.send_task(name, args=list(args), queue=queue, headers=headers)
    except Exception:
        log.exception("could not send the task %s%s to the queue %s", name, args, queue)
