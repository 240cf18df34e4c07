"""The site's error page for answers given outside a view (middleware, the server-error
handler): ``templates/<status>.html`` if there is one, else ``templates/error.html``.

Rendered without the request's context (no user, session or database read), so it renders
while the database is down; the message is the participant-safe text of the answer."""

from __future__ import annotations

from django.http import HttpResponse
from django.template import loader


def error_page(status: int, message: str, title: str = "", **headers: str) -> HttpResponse:
    page = loader.select_template([f"{status}.html", "error.html"])
    context = {"status": status, "message": message, "title": title}
    return HttpResponse(page.render(context), status=status, headers=headers or None)
