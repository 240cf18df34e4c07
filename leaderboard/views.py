"""Project-level views: the bad-request and server-error pages (pages live in the apps;
health checks in ``leaderboard.operations.health``). The error pages themselves are
``templates/<status>.html``, each extending ``templates/error.html``."""

from __future__ import annotations

import sys

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent, TooManyFilesSent
from django.db import DatabaseError, connections
from django.db.utils import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse, UnreadablePostError
from django.views.defaults import server_error as html_server_error

from leaderboard.api.errors import error_body
from leaderboard.errorpages import error_page
from leaderboard.storage import StorageUnavailable

#: Seconds a client is asked to wait before trying again after the database did not answer.
RETRY_AFTER_SECONDS = 5
#: ... and after private storage did not take a file (a disk to clear, a store to come back).
STORAGE_RETRY_AFTER_SECONDS = 60


def server_error(request: HttpRequest) -> HttpResponse:
    """An unexpected error: the API's JSON error shape under ``/api/``, the HTML page elsewhere.

    Three failures are not the request's and get their own answer: a database that did not
    answer (a dropped connection, a restart) and private storage that did not take a file (a
    full or read-only disk) are 503 with ``Retry-After``, and a request body that stopped
    arriving is 400. Nothing about the failure reaches the client; the traceback
    goes to the server's log. Django calls this inside its ``except`` block, so the error is
    ``sys.exc_info()``.
    """
    error = sys.exc_info()[1]
    if isinstance(error, OperationalError | InterfaceError):
        # The connection is broken: close it so the next request of this thread opens a new one.
        for connection in connections.all(initialized_only=True):
            if not connection.in_atomic_block:
                connection.close()
        return unavailable(request)
    if isinstance(error, StorageUnavailable):
        return storage_unavailable(request)
    if isinstance(error, UnreadablePostError):
        return _answer(
            request,
            400,
            "incomplete_request",
            "The request body did not arrive in full; nothing was stored. Please send it again.",
        )
    if isinstance(error, DatabaseError | ValueError) and "NUL" in str(error):
        # A NUL in a value the checks before the database did not see (Postgres refuses it).
        return _answer(request, 400, "invalid", "The request contains a NUL character.")
    if request.path.startswith("/api/"):
        return _answer(
            request,
            500,
            "server_error",
            "The server failed to answer this request; the error has been logged. "
            "Please try again later.",
        )
    return html_server_error(request)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """400 for a request Django refused while reading it (too many files or fields, a broken
    body): the API's JSON error under ``/api/``, the site's page elsewhere."""
    if isinstance(exception, TooManyFilesSent):
        message = (
            f"The request sends more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files; "
            "send one file per condition."
        )
    elif isinstance(exception, TooManyFieldsSent):
        message = (
            f"The request sends more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields; "
            "nothing was stored."
        )
    else:
        message = "The request could not be read; nothing was stored."
    return _answer(request, 400, "bad_request", message)


def unavailable(request: HttpRequest) -> HttpResponse:
    """503 with a retry hint: the database did not answer this request."""
    response = _answer(
        request,
        503,
        "unavailable",
        "The site could not reach its database for a moment; please try again in a few "
        "seconds. If this was an upload, look at your submissions before sending it again.",
    )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def storage_unavailable(request: HttpRequest) -> HttpResponse:
    """503 with a retry hint: private storage did not take a file (full, read-only,
    refusing writes); nothing of the request was kept."""
    response = _answer(
        request,
        503,
        "unavailable",
        "The site cannot store files at the moment; please try again later. Nothing of this "
        "upload was kept and it does not count against your quota.",
    )
    response["Retry-After"] = str(STORAGE_RETRY_AFTER_SECONDS)
    return response


def _answer(request: HttpRequest, status: int, code: str, message: str) -> HttpResponse:
    """The API's JSON error, or the site's error page with ``message`` (rendered without the
    request's context: no session or database read, so it works while the database is down)."""
    if request.path.startswith("/api/"):
        return JsonResponse(error_body(code, message), status=status)
    return error_page(status, message)
