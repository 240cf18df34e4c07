"""schemathesis against /api/v1/schema/, in-process through the WSGI application (no
network): no server error, and every response's status, content type, headers and body are
the ones the schema declares. Bounded to a few examples per operation to stay quick."""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
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
def test_every_operation_conforms_to_the_schema(case, member_key, enqueued):
    case.call_and_validate(headers={"Authorization": f"Bearer {member_key}"}, checks=CHECKS)


def test_the_schema_and_the_docs_page_are_served_without_a_cdn(client):
    assert client.get("/api/v1/schema/").status_code == 200
    page = client.get("/api/v1/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/" in page
    assert "//cdn" not in page and "unpkg" not in page and "jsdelivr" not in page
