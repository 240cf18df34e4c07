"""schemathesis against /api/v1/schema/, in-process through the WSGI application (no
network): no server error, and every response's status, content type, headers and body are
the ones the schema declares. Bounded to a few examples per operation to stay quick. The
upload's cases go to the test's own phase: with a random phase id every one of them stopped at
404, before the fields the schema describes were read."""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from leaderboard.api.services import create_token
from tests.leaderboard.web import scored_submission

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", get_wsgi_application())

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture
def keep_test_connection():
    """Calls go straight to the WSGI handler, which closes the database connection after
    each request; inside the test's transaction that would close it for good (on Postgres).
    Django's own test client disconnects the same handlers."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def member_key(actors, settings, keep_test_connection):
    # Generous rates: the point here is conformance, not throttling (tested elsewhere).
    rates = dict.fromkeys(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "10000/min")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    scored_submission(actors.team, actors.phase)
    _, key = create_token(actors.member, "schemathesis")
    return key


@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_conforms_to_the_schema(case, actors, member_key, enqueued):
    if (case.method, case.path) == UPLOAD:
        case.path_parameters = {**case.path_parameters, "id": actors.phase.pk}
    case.call_and_validate(headers={"Authorization": f"Bearer {member_key}"}, checks=CHECKS)


#: The upload's operation.
UPLOAD = ("POST", "/api/v1/phases/{id}/submissions/")
#: The upload's own fields (the files are the others).
FIELDS = {"method_name", "method_description", "url", "team"}


@pytest.mark.django_db
def test_the_upload_cases_reach_its_fields(actors, member_key, enqueued):
    answers: list[tuple[int, dict]] = []

    @given(case=schema[UPLOAD[1]][UPLOAD[0]].as_strategy())
    @settings(
        max_examples=40,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def upload(case):
        case.path_parameters = {**case.path_parameters, "id": actors.phase.pk}
        response = case.call_and_validate(
            headers={"Authorization": f"Bearer {member_key}"}, checks=CHECKS
        )
        answers.append((response.status_code, response.json()))

    upload()
    # a field refused by name, and an upload whose fields all passed (stored, or its files
    # refused by the scorer)
    refused = [a["error"]["details"] for s, a in answers if s == 400 and "details" in a["error"]]
    assert any(FIELDS & set(details) for details in refused), answers
    assert any(
        status == 201 or (status == 400 and body["error"]["code"] == "submission_rejected")
        for status, body in answers
    ), answers


def test_the_schema_and_the_docs_page_are_served_without_a_cdn(client):
    assert client.get("/api/v1/schema/").status_code == 200
    page = client.get("/api/v1/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/" in page
    assert "//cdn" not in page and "unpkg" not in page and "jsdelivr" not in page
