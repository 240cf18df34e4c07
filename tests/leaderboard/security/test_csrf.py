"""CSRF: a signed-in browser session posting without a token is refused (403) at every URL of
the project, pages, admin and the API's session authentication alike. API token clients carry
no cookies and need no CSRF token."""

from __future__ import annotations

import pytest

from leaderboard.submissions.models import Submission
from tests.leaderboard.security.urlwalk import all_routes, url_for

pytestmark = pytest.mark.django_db

#: DRF checks CSRF in session authentication, which runs for views that take a POST; a
#: read-only API view answers 405 (404 for the catch-all) and can change nothing.
API_READ_ONLY = (404, 405)


@pytest.mark.parametrize("actor", ["owner", "superuser", "anonymous"])
def test_a_post_without_a_csrf_token_is_refused_everywhere(world, actor):
    client = world.client(actor, enforce_csrf_checks=True)
    values = world.kwargs()
    wrong = []
    for route in all_routes():
        if "<unnamed" in route.name:
            continue
        url = url_for(route, values)
        response = client.post(url, {"method_name": "x", "name": "x", "username": "u"})
        api = route.name.startswith(("api:", "api-root"))
        allowed = (401, 403, *API_READ_ONLY) if api else (401, 403)
        if response.status_code not in allowed:
            wrong.append(f"{route.name} {url}: {response.status_code}")
    assert not wrong, "POST without a CSRF token was not refused:\n" + "\n".join(wrong)
    assert Submission.objects.count() == 1  # the world's own, nothing new


def test_the_same_post_with_the_token_gets_through(world):
    client = world.client("owner", enforce_csrf_checks=True)
    page = client.get("/accounts/profile/")
    token = page.cookies["csrftoken"].value if "csrftoken" in page.cookies else None
    token = token or client.cookies["csrftoken"].value
    response = client.post(
        "/accounts/profile/tokens/", {"name": "cli", "csrfmiddlewaretoken": token}
    )
    assert response.status_code in (200, 302)
