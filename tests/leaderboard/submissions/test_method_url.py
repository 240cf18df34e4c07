"""A method's URL is what the API's schema says it is (``format: uri``): one validator for the
upload (web and API) and the edit refuses what a URI cannot hold, with a message naming what to
do, before anything is stored."""

from __future__ import annotations

import jsonschema_rs
import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import escape

from leaderboard.submissions.models import Submission, method_url
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS, approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, log_in, prediction_file, submit_payload

#: The issue's value: stored, it broke every reader of the submission that checks the schema.
INJECTED = 'https://example.org/"><script>alert(1)</script>'
MESSAGE = "This URL holds characters a URL cannot"

#: Whether each is a web address written as RFC 3986 allows (worked out by hand).
CANDIDATES = {
    "https://example.org": True,
    "https://example.org/paper?id=1&v=2#results": True,
    "http://example.org:8080/a_b~c/(d)/%20e;f=g,h": True,
    "https://user:secret@example.org/p": True,
    "http://[2001:db8::1]:8000/x": True,
    INJECTED: False,
    "https://example.org/a<b": False,
    "https://example.org/café": False,  # to percent-encode: caf%C3%A9
    "https://example.org/50%": False,  # a lone %
    "https://example.org/{id}": False,
    "https://example.org/a|b": False,
    "https://example.org/a[1]": False,  # brackets only around an IPv6 host
    'https://us"er@example.org/': False,
    "ftp://example.org/p": False,  # a URI, but not a web page
}


@pytest.mark.parametrize(("value", "accepted"), list(CANDIDATES.items()))
def test_the_validator_accepts_a_web_address_as_the_schemas_uri_format_does(value, accepted):
    try:
        method_url(value)
    except ValidationError:
        refused = True
    else:
        refused = False
    assert refused is not accepted
    # the schema's own reading (the JSON Schema validator Schemathesis checks answers with)
    uri = jsonschema_rs.validator_for({"type": "string", "format": "uri"}, validate_formats=True)
    if accepted:
        assert uri.is_valid(value)


@pytest.fixture
def phase(db):
    return phase_with_references(GOLD_BYTES)


@pytest.fixture
def team(phase):
    return approved_team(phase)


def test_the_api_refuses_the_upload_naming_the_field(phase, team, enqueued):
    payload = {"method_name": "m", "url": INJECTED, **{k: prediction_file() for k in KEYS}}
    response = token_client(team.created_by).post(
        f"/api/v1/phases/{phase.pk}/submissions/", payload, format="multipart"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    (message,) = error["details"]["url"]
    assert message.startswith(MESSAGE) and "percent-encode" in message
    assert not Submission.objects.exists() and enqueued == []


def test_the_web_upload_refuses_it_beside_the_field(client, phase, team):
    log_in(client, team.created_by)
    response = client.post(
        reverse("submissions:submit", args=[phase.challenge.slug, phase.slug]),
        submit_payload(url=INJECTED),
    )
    assert response.status_code == 200  # the form again
    assert response.context["form"].errors["url"][0].startswith(MESSAGE)
    assert escape(MESSAGE) in response.content.decode()
    assert not Submission.objects.exists()


def test_the_api_edit_refuses_it_too(phase, team):
    client = token_client(team.created_by)
    payload = {"method_name": "m", **{k: prediction_file() for k in KEYS}}
    created = client.post(f"/api/v1/phases/{phase.pk}/submissions/", payload, format="multipart")
    assert created.status_code == 201
    url = f"/api/v1/submissions/{created.json()['id']}/"
    refused = client.patch(url, {"url": INJECTED}, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"]["details"]["url"][0].startswith(MESSAGE)
    assert Submission.objects.get().url == ""
