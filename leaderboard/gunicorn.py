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
"""

from __future__ import annotations

import os
from typing import Any

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
# Gunicorn's control socket (``gunicornc``) is unused here; it would be made in the user's home,
# which the image's user cannot write.
control_socket_disable = True


def pre_request(worker: Any, req: Any) -> None:
    """Bound each read of this request's body, and each write of its answer, on the socket."""
    sock = getattr(req.unreader, "sock", None)
    if sock is not None:
        sock.settimeout(READ_TIMEOUT)
