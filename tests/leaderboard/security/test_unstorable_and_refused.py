"""Inputs that used to pass validation and fail later, and the cost of refused uploads:

- a NUL or a lone surrogate in a domain, slot or value makes the upload invalid, for every
  task, with a message that says so: its worker refuses it on reading it, uncharged, rather
  than failing when it stores the results (no database stores either);
- a NUL in a query string is 400, not a server error;
- refused uploads are limited per team (the request's refusals and its workers' alike) and
  per address (the request's own: a condition left out, a file too large), on the web form
  and the API alike, with the time to wait.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.background import SCORE_SUBMISSION
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission, SubmissionFile
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS, approved_team, phase_with_references, upload
from tests.leaderboard.task_data import DVD_GOLD, MWZ_GOLD, SCHEMA, make_phase
from tests.leaderboard.web import GOLD_BYTES, log_in, prediction_file

pytestmark = pytest.mark.django_db

# Each: the task, its phase's gold and files, and a prediction with an unstorable string.
UNSTORABLE = {
    "dstc11-nul-in-slot": (
        "dstc11",
        b'{"mul0001": [{"hotel": {"ar\\u0000ea": "north"}}, {}], "sng0002": [{}, {}]}',
        "NUL",
    ),
    "dstc11-surrogate-in-domain": (
        "dstc11",
        b'{"mul0001": [{"ho\\udc00tel": {"area": "north"}}, {}], "sng0002": [{}, {}]}',
        "surrogate",
    ),
    "dstc11-nul-in-value": (
        "dstc11",
        b'{"mul0001": [{"hotel": {"area": "north\\u0000"}}, {}], "sng0002": [{}, {}]}',
        "NUL",
    ),
    "multiwoz22-surrogate-in-value": (
        "multiwoz22",
        b'{"d1": [{"hotel-name": "acorn \\ud800"}, {}], "d2": [{}]}',
        "surrogate",
    ),
    "dvd-nul-in-value": (
        "dvd",
        b'{"v1": ["<obj1> SIZE lar\\u0000ge", ""], "v2": [""]}',
        "NUL",
    ),
}


def _phase(task: str):
    if task == "dstc11":
        return phase_with_references(GOLD_BYTES, keys=("test",))
    if task == "multiwoz22":
        files = {"schema": (json.dumps(SCHEMA).encode(), "schema.json")}
        return make_phase(task, json.dumps(MWZ_GOLD).encode(), files)
    return make_phase(task, json.dumps(DVD_GOLD).encode())


@pytest.mark.parametrize("kind", list(UNSTORABLE))
def test_an_unstorable_string_makes_the_upload_invalid_for_every_task(
    kind, isolation, worker, published
):
    task, content, word = UNSTORABLE[kind]
    phase = _phase(task)
    team = approved_team(phase)
    api = token_client(team.created_by)
    with worker():
        response = api.post(
            f"/api/v1/phases/{phase.pk}/submissions/",
            {"method_name": kind, "test": upload(content, "run.json")},
            format="multipart",
        )
    assert response.status_code == 201, response.content[:300]
    pk = response.json()["id"]
    assert _scoring_tasks(published) == [pk]
    assert worker.outcomes == ["invalid"]  # refused by the worker, neither failed nor scored
    found = api.get(f"/api/v1/submissions/{pk}/").json()
    assert found["status"] == "invalid" and found["files"] == []
    assert found["verdicts"] == {"test": {"kind": "unreadable", "name": "run.json"}}
    assert found["error"].startswith("test: ")
    message = found["error"].removeprefix("test: ")
    assert word in message and "line 1" in message and len(message) < 300
    assert services.quota_usage(team, phase) == (0, 0)
    assert not Submission.objects.exclude(status="invalid").exists()
    assert not Submission.objects.get(pk=pk).charged
    assert not SubmissionFile.objects.exists()
    assert not [p for p in (isolation["private"] / "submissions").rglob("*") if p.is_file()]


def test_a_valid_surrogate_pair_and_an_escaped_backslash_are_text_and_accepted(isolation, worker):
    phase = phase_with_references(GOLD_BYTES, keys=("test",))
    team = approved_team(phase)
    content = (
        b'{"mul0001": [{"hotel": {"area": "north \\ud83d\\ude00"}}, '
        b'{"hotel": {"area": "\\\\u0000 north"}}], "sng0002": [{}, {}]}'
    )
    with worker():
        response = token_client(team.created_by).post(
            f"/api/v1/phases/{phase.pk}/submissions/",
            {"method_name": "emoji", "test": upload(content, "run.json")},
            format="multipart",
        )
    assert response.status_code == 201, response.content[:300]
    assert worker.outcomes == ["scored"]
    row = Submission.objects.get(pk=response.json()["id"])
    assert row.status == Submission.Status.SCORED and row.charged and not row.error


def test_a_nul_in_a_query_string_is_a_client_error(world):
    api = token_client(world.users["owner"])
    phase = world.phase
    for path in (
        f"/api/v1/phases/{phase.pk}/leaderboard/?condition=%00",
        "/api/v1/submissions/?status=a%00b",
        f"/api/v1/challenges/?search=%00&ordering={phase.pk}",
    ):
        response = api.get(path)
        assert response.status_code == 400, path
        assert "NUL" in response.json()["error"]["message"]
    page = Client()
    log_in(page, world.users["owner"])
    slug = phase.challenge.slug
    for path in (
        f"/challenges/{slug}/{phase.slug}/leaderboard/?condition=%00",
        f"/submissions/{world.submission.pk}/compare/?with=1%00",
        "/?q=%00",
    ):
        response = page.get(path)
        assert response.status_code == 400, path
        assert "NUL" in response.text


def _broken() -> dict:
    return {key: prediction_file(b'{"mul0001": [', "broken.json") for key in KEYS}


def _incomplete() -> dict:
    """An upload the request refuses without reading a file: a condition left out."""
    return {key: prediction_file() for key in KEYS[1:]}


def _scoring_tasks(published) -> list[object]:
    return [args[0] for name, args, _ in published if name == SCORE_SUBMISSION]


def test_thirty_refused_uploads_in_a_row_meet_the_team_limit_on_the_api(
    settings, isolation, worker
):
    # the per-user upload rate out of the way: the team's limit is what answers
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "submit-user": "100/hour",
        },
    }
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    api = token_client(team.created_by)
    url = f"/api/v1/phases/{phase.pk}/submissions/"
    codes = []
    for n in range(30):
        # Each from another address: the team's own limit, not the address's, is met. Each
        # upload is taken and queued; its worker refuses it before the next one is sent.
        with worker():
            response = api.post(
                url, {"method_name": f"broken {n}", **_broken()}, REMOTE_ADDR=f"10.1.0.{n}"
            )
        codes.append(response.status_code)
    assert codes == [201] * 20 + [429] * 10
    assert worker.outcomes == ["invalid"] * 20
    error = response.json()["error"]
    assert error["code"] == "throttled" and "try again in" in error["message"]
    assert "uploads that were not accepted" in error["message"]
    assert int(response["Retry-After"]) > 3000  # the oldest refusal leaves the hour soon after
    # A good file waits too: the limit is on the team, whatever it sends next.
    good = {key: prediction_file() for key in KEYS}
    with worker():
        response = api.post(url, {"method_name": "good", **good})
    assert response.status_code == 429
    assert "uploads that were not accepted" in response.json()["error"]["message"]
    assert worker.outcomes == ["invalid"] * 20
    assert Submission.objects.filter(status="invalid").count() == 20
    assert not Submission.objects.exclude(status="invalid").exists()
    assert services.quota_usage(team, phase) == (0, 0)


def test_the_web_form_meets_the_same_team_limit_with_a_message(client, settings, isolation, worker):
    settings.REJECTED_UPLOADS_PER_TEAM = "3/hour"
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    log_in(client, team.created_by)
    url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
    for n in range(3):
        files = {f"file_{key}": upload(b'{"mul0001": [', "broken.json") for key in KEYS}
        with worker():
            response = client.post(url, {"method_name": f"broken {n}", **files})
        assert response.status_code == 302
    # each taken by the request, then refused by its worker
    assert worker.outcomes == ["invalid"] * 3
    assert Submission.objects.filter(team=team, status="invalid").count() == 3
    files = {f"file_{key}": upload(b'{"mul0001": [', "broken.json") for key in KEYS}
    with worker():
        refused = client.post(url, {"method_name": "broken again", **files})
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "uploads that were not accepted" in refused.text and "try again in" in refused.text
    assert worker.outcomes == ["invalid"] * 3  # nothing more was stored or sent
    assert Submission.objects.filter(team=team).count() == 3


def test_the_web_form_meets_the_address_limit_with_a_message(client, settings, isolation, worker):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "rejected-ip": "1/hour",
        },
    }
    settings.MAX_UPLOAD_BYTES = 20  # the request refuses the file without reading it
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    log_in(client, team.created_by)
    url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
    files = {f"file_{key}": prediction_file() for key in KEYS}
    refused = client.post(url, {"method_name": "too large", **files}, REMOTE_ADDR="10.4.0.1")
    assert refused.status_code == 200
    assert "the largest accepted is" in refused.text
    files = {f"file_{key}": prediction_file() for key in KEYS}
    with worker():
        limited = client.post(url, {"method_name": "again", **files}, REMOTE_ADDR="10.4.0.1")
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) > 0
    assert "Too many uploads from your address were not accepted" in limited.text
    assert "try again in" in limited.text
    assert worker.outcomes == []
    assert Submission.objects.filter(team=team).count() == 1  # the refused one only


def test_refused_uploads_are_limited_per_address_across_teams(settings, isolation, worker):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "rejected-ip": "3/hour",
        },
    }
    phase = phase_with_references(GOLD_BYTES)
    url = f"/api/v1/phases/{phase.pk}/submissions/"
    # Uploads taken by the request and refused by their workers do not count: the address
    # limit is on what the request itself refuses (the team's limit counts both).
    for _ in range(3):
        api = token_client(approved_team(phase).created_by)
        with worker():
            response = api.post(url, {"method_name": "broken", **_broken()}, REMOTE_ADDR="10.2.0.1")
        assert response.status_code == 201
    assert worker.outcomes == ["invalid"] * 3
    codes = []
    for _ in range(5):
        api = token_client(approved_team(phase).created_by)
        with worker():
            response = api.post(
                url, {"method_name": "incomplete", **_incomplete()}, REMOTE_ADDR="10.2.0.1"
            )
        codes.append(response.status_code)
    assert codes == [400, 400, 400, 429, 429]
    assert "not accepted" in response.json()["error"]["message"]
    # Nor can the address send anything else meanwhile, a file a worker would read included.
    api = token_client(approved_team(phase).created_by)
    with worker():
        response = api.post(url, {"method_name": "broken", **_broken()}, REMOTE_ADDR="10.2.0.1")
    assert response.status_code == 429
    assert worker.outcomes == ["invalid"] * 3
    # Another address is not affected.
    api = token_client(approved_team(phase).created_by)
    other = api.post(url, {"method_name": "incomplete", **_incomplete()}, REMOTE_ADDR="10.2.0.2")
    assert other.status_code == 400
    assert other.json()["error"]["code"] == "submission_rejected"
    assert other.json()["error"]["details"]["kinds"] == {KEYS[0]: "missing"}
    assert Submission.objects.filter(status="invalid").count() == 3 + 3 + 1
    assert not Submission.objects.exclude(status="invalid").exists()
