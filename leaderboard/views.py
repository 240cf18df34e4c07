"""Project-level views: the server-error page (pages live in the apps; health checks in
``leaderboard.operations.health``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import server_error as html_server_error


def server_error(request: HttpRequest) -> HttpResponse:
    """An unexpected error: the API's JSON error shape under ``/api/``, the HTML page elsewhere.

    Nothing about the failure reaches the client; the traceback goes to the server's log.
    """
    if request.path.startswith("/api/"):
        from leaderboard.api.errors import error_body

        body = error_body(
            "server_error",
            "The server failed to answer this request; the error has been logged. "
            "Please try again later.",
        )
        return JsonResponse(body, status=500)
    return html_server_error(request)
