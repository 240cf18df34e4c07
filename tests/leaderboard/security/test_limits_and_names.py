"""Log-in throttling, whitelisted query parameters, random stored file names, and files that
are never served."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.submissions.models import SubmissionFile
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS
from tests.leaderboard.web import prediction_file, submit_payload

pytestmark = pytest.mark.django_db


def test_failed_log_ins_are_throttled_per_username_at_an_address_and_per_address(
    client, world, settings
):
    settings.LOGIN_FAILURE_LIMIT = 3
    url = reverse("account_login")
    owner = world.users["owner"]
    for _ in range(2):
        assert client.post(url, {"login": owner.username, "password": "wrong"}).status_code == 200
    # The third failure reaches the limit: it is answered with the refusal, as is every
    # attempt after it from this address, the right password included.
    third = client.post(url, {"login": owner.username, "password": "wrong"})
    assert third.status_code == 429
    refused = client.post(url, {"login": owner.username, "password": "pw"})
    assert refused.status_code == 429
    assert "Too many failed log-ins" in refused.text
    # Another address, the same username: the owner logs in (a stranger cannot lock them out).
    # (a client of its own: a signed-in client's log-in page sends it on without checking)
    other = Client(REMOTE_ADDR="10.9.9.9").post(url, {"login": owner.username, "password": "pw"})
    assert other.status_code == 302
    # The address that failed is refused for another account too (per address).
    member = world.users["member"]
    member.set_password("right-password-1")
    member.save()
    same = client.post(url, {"login": member.username, "password": "right-password-1"})
    assert same.status_code == 429
    ok = client.post(
        url, {"login": member.username, "password": "right-password-1"}, REMOTE_ADDR="10.9.9.8"
    )
    assert ok.status_code == 302


HOSTILE = [
    "",
    "-",
    "'; DROP TABLE x;--",
    "__proto__",
    "9" * 400,
    "\u202e",
    "-1",
    "1e9",
    "%00",
    "jga desc",
]


@pytest.mark.parametrize("value", HOSTILE)
def test_ordering_and_filter_parameters_are_whitelisted(world, value):
    api = token_client(world.users["owner"])
    phase = world.phase
    for path in (
        f"/api/v1/phases/{phase.pk}/leaderboard/?condition={value}",
        f"/api/v1/phases/{phase.pk}/leaderboard/?page={value}&page_size={value}",
        f"/api/v1/phases/{phase.pk}/leaderboard/?format={value}",
        f"/api/v1/submissions/?phase={value}&status={value}",
        f"/api/v1/submissions/?ordering={value}&page={value}",
        f"/api/v1/challenges/?ordering={value}&search={value}",
    ):
        assert api.get(path).status_code < 500, path
    from django.test import Client

    client = Client()
    slug, phase_slug = phase.challenge.slug, phase.slug
    for path in (
        f"/challenges/{slug}/{phase_slug}/leaderboard/?sort={value}&order={value}&c={value}",
        f"/challenges/{slug}/{phase_slug}/leaderboard/?condition={value}&partial={value}",
        f"/submissions/{world.submission.pk}/compare/?with={value}",
    ):
        assert client.get(path).status_code < 500, path


def test_stored_file_names_are_random_never_the_uploaded_name(client, world, enqueued):
    from tests.leaderboard.web import log_in

    log_in(client, world.users["owner"])
    files = {key: prediction_file(name="../../etc/passwd;evil.json") for key in KEYS}
    url = reverse("submissions:submit", args=[world.phase.challenge.slug, world.phase.slug])
    response = client.post(url, submit_payload(files=files))
    assert response.status_code == 302
    names = list(SubmissionFile.objects.values_list("file", "original_name"))
    assert len(names) == 2 * len(KEYS)  # the world's submission and this one
    for stored, original in names:
        assert original not in stored and "passwd" not in stored and "evil" not in stored
        prefix, _, token = stored.partition("/")
        assert prefix == "submissions" and len(token) == 32 and int(token, 16) >= 0


def test_no_url_serves_a_stored_file(client, world):
    for stored in SubmissionFile.objects.values_list("file", flat=True):
        for prefix in ("/", "/media/", "/static/", "/private/", "/api/v1/"):
            response = client.get(prefix + stored)
            assert response.status_code == 404, prefix + stored
