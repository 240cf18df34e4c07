"""The Celery application; its configuration is the ``CELERY_*`` names in settings.py."""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

from celery import Celery
from celery.signals import worker_process_init
from django.conf import settings

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
def _create_file_broker_folders(sender: Celery, **kwargs: Any) -> None:
    """Runs when a process (web, worker, command) first reads the Celery configuration, so
    before it publishes to or consumes from the broker."""
    if (sender.conf.broker_url or "").startswith("filesystem://"):
        options = sender.conf.broker_transport_options
        for key in FILE_BROKER_FOLDERS:
            Path(options[key]).mkdir(parents=True, exist_ok=True)


@worker_process_init.connect
def _freeze_what_is_loaded(**kwargs: Any) -> None:
    """A pool process, once started, leaves what it has loaded (Django, the tasks, the
    scorer's modules) out of the garbage collector's passes: the full passes that a board's
    build or a scoring triggers then look only at what the task made (without it, about a
    sixth of a 500-team board's build went to them; benchmarks/README.md)."""
    gc.freeze()


app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def mail_queue() -> str:
    """The queue of the mail tasks (settings.CELERY_MAIL_QUEUE), read at call time so tests
    and operators can route it."""
    return settings.CELERY_MAIL_QUEUE or f"{settings.CELERY_TASK_DEFAULT_QUEUE}-mail"
