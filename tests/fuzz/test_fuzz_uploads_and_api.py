"""Hypothesis against the upload endpoints (form and API), the worker that reads the uploaded
files, and the API's read endpoints: whatever arrives, the answer is never a server error, the
worker scores the upload or refuses it (never fails on it, never raises), and nothing is
charged or stored for a refused upload. Example counts are bounded to keep the suite quick."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboard.submissions.models import Submission, SubmissionFile
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS, approved_team, phase_with_references
from tests.leaderboard.web import GOLD, GOLD_BYTES, PREDICTION, log_in, prediction_file

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)
#: Mostly near-valid files (the prediction with one part swapped), some raw bytes.
contents = st.one_of(
    st.binary(max_size=2_000),
    st.builds(
        lambda d, turn, value: json.dumps(
            {**PREDICTION, d: [value if i == turn else s for i, s in enumerate(PREDICTION[d])]}
        ).encode(),
        st.sampled_from(list(GOLD)),
        st.integers(0, 1),
        json_values,
    ),
    st.builds(lambda v: json.dumps(v).encode(), json_values),
    st.text(max_size=500).map(lambda t: t.encode("utf-8", "surrogatepass")),
)
field_text = st.text(max_size=300)


@pytest.fixture
def world(db, isolation, settings):
    # Throttling is tested elsewhere; here it would only stop the examples early.
    rates = dict.fromkeys(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "100000/hour")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    return phase, team, isolation["private"], token_client(team.created_by)


def _stored_predictions(private) -> int:
    return sum(1 for p in private.rglob("*") if p.is_file() and "references" not in p.parts)


@FUZZ
@given(content=contents, method=field_text, url=field_text)
def test_api_uploads_never_cause_a_server_error(world, worker, content, method, url):
    phase, _team, private, api = world
    files = {key: prediction_file() for key in KEYS}
    files["tts-verbatim"] = prediction_file(content, "fuzz.json")
    sent = len(worker.outcomes)
    with worker():
        response = api.post(
            f"/api/v1/phases/{phase.pk}/submissions/",
            {"method_name": method, "url": url, **files},
        )
    assert response.status_code < 500, response.content[:300]
    if response.status_code != 201:
        assert response.json()["error"]["message"]
    else:
        (outcome,) = worker.outcomes[sent:]
        assert outcome in ("scored", "invalid")
        found = Submission.objects.get(pk=response.json()["id"])
        assert found.status == outcome and found.charged == (outcome == "scored")
        if outcome == "invalid":
            assert found.error.startswith("tts-verbatim: ")
    accepted = Submission.objects.exclude(status=Submission.Status.INVALID).count()
    assert SubmissionFile.objects.count() == accepted * len(KEYS)
    assert _stored_predictions(private) == accepted * len(KEYS)


@FUZZ
@given(content=contents, method=field_text, description=field_text)
def test_form_uploads_never_cause_a_server_error(world, worker, content, method, description):
    phase, team, private, _ = world
    client = Client()
    log_in(client, team.created_by)
    files = {f"file_{key}": prediction_file() for key in KEYS}
    files["file_tts-verbatim"] = prediction_file(content, "fuzz.json")
    url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
    data = {"method_name": method, "method_description": description, **files}
    with worker():
        response = client.post(url, data)
    assert response.status_code < 500
    assert set(worker.outcomes) <= {"scored", "invalid"}
    accepted = Submission.objects.exclude(status=Submission.Status.INVALID).count()
    assert _stored_predictions(private) == accepted * len(KEYS)


safe_path_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="/?#%"), max_size=30
)


@FUZZ
@given(
    segment=safe_path_text,
    params=st.dictionaries(
        st.sampled_from(
            ["condition", "page", "page_size", "format", "phase", "status", "ordering"]
        ),
        st.text(max_size=40),
        max_size=4,
    ),
    number=st.integers(-(2**70), 2**70),
)
def test_api_reads_never_cause_a_server_error(world, segment, params, number):
    phase, _team, _, api = world
    for path in (
        f"/api/v1/phases/{phase.pk}/leaderboard/",
        f"/api/v1/phases/{number}/leaderboard/",
        "/api/v1/submissions/",
        f"/api/v1/submissions/{number}/",
        f"/api/v1/challenges/{segment}/",
        "/api/v1/challenges/",
    ):
        response = api.get(path, params)
        assert response.status_code < 500, (path, params, response.content[:300])


@FUZZ
@given(body=json_values)
def test_api_json_bodies_never_cause_a_server_error(world, enqueued, body):
    phase, _team, _, api = world
    for path in (f"/api/v1/phases/{phase.pk}/submissions/", "/api/v1/submissions/1/cancel/"):
        response = api.post(path, json.dumps(body), content_type="application/json")
        assert response.status_code < 500, (path, body, response.content[:300])
