"""One id per request, so that an operator can follow a request through every log it touches:
nginx's access line, gunicorn's, every line Django logs while serving it, the answer's
``X-Request-ID`` header, and the lines of the Celery tasks it sends.

nginx makes the id (``$request_id``) and hands it on as ``X-Request-ID``
(docker/nginx/nginx.conf); the site takes that header only behind a trusted proxy
(``TRUSTED_PROXIES``, as for the client's address), and otherwise makes its own, so a client
cannot choose the id its requests are logged under. The id lives in a context variable for the
time of the request (or of the task), which ``RequestIdFilter`` adds to every log record.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.core.signals import request_finished
from django.http import HttpRequest, HttpResponse

HEADER = "X-Request-ID"
#: The Celery message header a task's request id travels in.
TASK_HEADER = "request_id"
#: What an id taken from a proxy may be: nginx's are 32 hex digits; other proxies use UUIDs.
_ACCEPTED = re.compile(r"[A-Za-z0-9._:-]{1,128}")

_current: ContextVar[str | None] = ContextVar("request_id", default=None)


def current() -> str | None:
    """The id of the request (or task) this thread is serving; None outside one."""
    return _current.get()


def use(request_id: str | None) -> None:
    """Make ``request_id`` the current one (None: none), until the next call."""
    _current.set(request_id)


def _from_proxy(request: HttpRequest) -> str | None:
    if not settings.TRUSTED_PROXIES:
        return None  # no proxy in front: the header, if any, is the client's own
    sent = request.headers.get(HEADER, "")
    return sent if _ACCEPTED.fullmatch(sent) else None


class RequestIdMiddleware:
    """The request's id (the trusted proxy's, or a new one), current while it is served and
    sent back in ``X-Request-ID``. The id stays current until the request is finished (Django's
    own lines about the answer, such as "Not Found", are logged after the middleware returns)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = _from_proxy(request) or uuid.uuid4().hex
        use(request_id)
        response = self.get_response(request)
        response[HEADER] = request_id
        return response


def _finished(**kwargs: Any) -> None:
    use(None)


request_finished.connect(_finished, dispatch_uid="leaderboard.requestids.finished")


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to every record logged while a request or a task is served."""

    def filter(self, record: logging.LogRecord) -> bool:
        request_id = current()
        if request_id is not None and not hasattr(record, "request_id"):
            record.request_id = request_id
        return True


class TextFormatter(logging.Formatter):
    """The text format, with ``[request id]`` after the logger's name on the lines that have
    one."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(_request_id)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        request_id = getattr(record, "request_id", None)
        record._request_id = f" [{request_id}]" if request_id else ""
        return super().format(record)
