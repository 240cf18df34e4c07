"""Gunicorn's configuration for the production web server (``gunicorn --config
python:leaderboard.gunicorn``; docker/compose.yml and the image use it).

What it protects against: clients that send their request slowly. Gunicorn's default ``sync``
worker reads a request body in the process that serves it, so three clients trickling an
upload used to hold the three workers of the compose deployment and the site stopped
answering. Here each worker process serves ``WEB_THREADS`` requests at once in threads
(``gthread``): a slow client holds one thread, not a process, and pages, uploads and
``/healthz`` go on in the others. A client that sends nothing for ``TRACKBOARD_READ_TIMEOUT``
seconds while its body is read (or reads nothing of its answer that long) is cut off: the
thread is back in the pool and the request is refused (4xx: its body is incomplete, nothing of
it is stored) or dropped.

What it does not do: buffer whole bodies before a thread takes them. It takes ``WEB_CONCURRENCY``
x ``WEB_THREADS`` clients stalling at once, each for up to the read timeout per pause, to make
the site wait; a reverse proxy that buffers request bodies (nginx does by default) in front of
it removes even that (docs/operators.md).

Every deployment here has nginx in front (docker/compose.yml, scripts/serve, the Kubernetes
manifests), which takes whole requests and buffers answers: there the readers' pool runs its
processes with one thread each (``WEB_THREADS=1``), since serving a board is Python work and the
threads of one process take turns on one core (benchmarks/README.md, "load.py": 12.4 ms of CPU
per signed-in read with 6 processes of one thread, 16.2 ms with 4 of four, under the same load).
The defaults here stay for gunicorn without nginx in front, which no deployment does.

Database connections: each thread of the pools keeps its connection between requests, for
``DATABASE_CONN_MAX_AGE`` seconds (60 here unless the operator sets it; Django's
``CONN_MAX_AGE``), checked before each request that reuses it (``CONN_HEALTH_CHECKS``): a
connection lost meanwhile, to a restart or a terminated backend, is opened anew, not failed on.
Opening one per request cost more CPU than the signed-in page itself (``benchmarks/
connections.py``: Postgres starts a backend process and fills its catalogue caches each time).
Celery's workers and ``manage.py`` do not read this file and keep the settings' default, 0.

Logs: each access line carries the request's id (the answer's ``X-Request-ID``,
leaderboard/requestids.py); under ``LOG_FORMAT=json`` every line gunicorn writes, access lines
included, is one JSON object (``Logger``).

Metrics: the pool's processes count their requests in files under
``PROMETHEUS_MULTIPROC_DIR`` (leaderboard/operations/metrics.py), which any of them reads at a
scrape. Unset, each start of gunicorn makes a new, empty one; an operator who sets it (so that
two pools on one host share it, as scripts/serve does) empties it before the pools start.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from collections.abc import MutableMapping
from typing import Any

from gunicorn import glogging

from leaderboard.operations.logs import JsonFormatter

# Read by the settings when a worker loads the app; the workers inherit the master's environment.
os.environ.setdefault("DATABASE_CONN_MAX_AGE", "60")

wsgi_app = "leaderboard.wsgi:application"
bind = os.environ.get("TRACKBOARD_BIND", "0.0.0.0:8000")
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
threads = int(os.environ.get("WEB_THREADS", "4"))
#: Seconds a client may pause while sending its request body (or reading the answer).
READ_TIMEOUT = float(os.environ.get("TRACKBOARD_READ_TIMEOUT", "30"))
# The worker's own liveness: the gthread worker's main thread reports in while its threads
# serve, so a long upload is never mistaken for a hung worker.
timeout = 60
graceful_timeout = 30
keepalive = 5
accesslog = "-"
# gunicorn's default line, and the request's id
access_log_format = (
    '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %({x-request-id}o)s'
)
JSON_LOGS = os.environ.get("LOG_FORMAT", "text").strip().lower() == "json"
# Gunicorn's control socket (``gunicornc``) is unused here; it would be made in the user's home,
# which the image's user cannot write.
control_socket_disable = True


def pre_request(worker: Any, req: Any) -> None:
    """Bound each read of this request's body, and each write of its answer, on the socket."""
    sock = getattr(req.unreader, "sock", None)
    if sock is not None:
        sock.settimeout(READ_TIMEOUT)


class Logger(glogging.Logger):
    """Gunicorn's logger; under ``LOG_FORMAT=json`` its lines are the site's JSON objects, an
    access line's fields those of gunicorn's default line, named, and the request's id."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        if JSON_LOGS:
            for log in (self.error_log, self.access_log):
                for handler in log.handlers:
                    handler.setFormatter(JsonFormatter())

    def access(
        self, resp: Any, req: Any, environ: MutableMapping[str, Any], request_time: dt.timedelta
    ) -> None:
        if not JSON_LOGS:
            super().access(resp, req, environ, request_time)
            return
        if not self.access_log_enabled:
            return
        atoms = self.atoms(resp, req, environ, request_time)
        fields = {
            "remote_addr": atoms["h"],
            "request": atoms["r"],
            "method": atoms["m"],
            "path": atoms["U"],
            "status": int(atoms["s"]),
            "bytes": atoms["B"],
            "duration_seconds": request_time.total_seconds(),
            "referer": atoms["f"],
            "user_agent": atoms["a"],
            "request_id": atoms.get("{x-request-id}o"),
        }
        self.access_log.info("%s %s", atoms["r"], atoms["s"], extra=fields)


logger_class = Logger


def _metrics_dir() -> str:
    """The pool's folder of metric files (made if missing), in the environment before any
    worker imports prometheus-client, which reads it at import."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or tempfile.mkdtemp(
        prefix="trackboard-metrics-"
    )
    os.makedirs(folder, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    return folder


METRICS_DIR = _metrics_dir()


def child_exit(server: Any, worker: Any) -> None:
    """A worker gone: its per-process series (memory, CPU) go with it; its counts stay."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid, METRICS_DIR)
