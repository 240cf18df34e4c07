"""A refused upload says, file by file, what happened: ``incomplete`` (read, but dialogues or
turns of the reference are missing), ``mismatched`` (read, but with dialogues or turns the
reference lacks), ``unreadable`` (not a prediction file at all), or ``valid``, on the
submission's page and in the API once its worker has read the files; ``missing`` at once, on
the form, which keeps the method's fields. Every task, the page and the API."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from leaderboard.challenges.services import add_reference
from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import (
    ChallengeFactory,
    ConditionFactory,
    PhaseFactory,
    approved_team,
    upload,
)
from tests.leaderboard.task_data import DVD_GOLD, MWZ_GOLD, MWZ_PERFECT, OPTIONS, SCHEMA
from tests.leaderboard.web import GOLD, log_in

pytestmark = pytest.mark.django_db

KEYS = ("alpha", "beta", "gamma")
UNREADABLE = b'{"d1": ['
#: task -> (gold bytes, reference files, a valid prediction, an incomplete one (a dialogue
#: left out), a mismatched one (a dialogue the reference lacks)), from the tiny references.
TASKS = {
    "dstc11": (
        json.dumps(GOLD).encode(),
        None,
        GOLD,
        {"mul0001": GOLD["mul0001"]},
        {**GOLD, "zzz9999": GOLD["mul0001"]},
    ),
    "multiwoz22": (
        json.dumps(MWZ_GOLD).encode(),
        {"schema": (json.dumps(SCHEMA).encode(), "schema.json")},
        MWZ_PERFECT,
        {"d1": MWZ_PERFECT["d1"]},
        {**MWZ_PERFECT, "zz": MWZ_PERFECT["d2"]},
    ),
    "dvd": (
        json.dumps(DVD_GOLD).encode(),
        None,
        DVD_GOLD,
        {"v1": DVD_GOLD["v1"]},
        {**DVD_GOLD, "zz": DVD_GOLD["v2"]},
    ),
}


def _phase(task: str):
    gold, files = TASKS[task][:2]
    phase = PhaseFactory(challenge=ChallengeFactory(task=task, scorer_options=OPTIONS))
    for order, key in enumerate(KEYS):
        condition = ConditionFactory(phase=phase, key=key, label=key.title(), order=order)
        add_reference(condition, gold, "gold.json", files)
    return phase


def _post(client, phase, files: dict[str, bytes | dict]):
    team = approved_team(phase)
    log_in(client, team.created_by)
    payload = {
        "method_name": "Kept tracker",
        "method_description": "Kept description",
        "url": "https://example.org/kept",
    }
    payload.update({f"file_{key}": upload(data, f"{key}-run.json") for key, data in files.items()})
    return team, client.post(
        reverse("submissions:submit", args=[phase.challenge.slug, phase.slug]), payload
    )


@pytest.mark.parametrize("task", list(TASKS))
def test_each_file_of_a_refused_upload_gets_its_own_verdict(client, worker, isolation, task):
    phase = _phase(task)
    _, _, valid, incomplete, _ = TASKS[task]
    with worker():
        team, response = _post(
            client, phase, {"alpha": valid, "beta": incomplete, "gamma": UNREADABLE}
        )
    (row,) = Submission.objects.filter(team=team)
    assert response.status_code == 302 and response["Location"] == f"/submissions/{row.pk}/"
    assert worker.outcomes == ["invalid"]
    # Nothing scored, kept or charged: the invalid row for the team's history, its verdicts.
    assert row.status == Submission.Status.INVALID and not row.charged
    assert not row.files.exists() and not row.results.exists()
    assert not [p for p in (isolation["private"] / "submissions").rglob("*") if p.is_file()]
    page = client.get(response["Location"]).text
    assert "Why the upload was not accepted" in page
    assert "it does not count against your quota" in page
    assert (
        "Beta (<code>beta-run.json</code>): <strong>incomplete</strong>, read, but dialogues "
        "or turns of the reference are missing." in page
    )
    assert (
        "Gamma (<code>gamma-run.json</code>): <strong>unreadable</strong>, could not be read "
        "as a prediction file in an accepted format." in page
    )
    assert (
        "Alpha (<code>alpha-run.json</code>): <strong>valid</strong>, it passed every check" in page
    )
    # The scorer's own messages, with the file's name
    assert "beta-run.json" in row.error and "gamma-run.json" in row.error
    assert "alpha" not in row.error


@pytest.mark.parametrize("task", list(TASKS))
def test_a_file_with_dialogues_the_reference_lacks_is_mismatched(client, worker, task):
    phase = _phase(task)
    _, _, valid, _, mismatched = TASKS[task]
    with worker():
        _, response = _post(client, phase, {"alpha": mismatched, "beta": valid, "gamma": valid})
    page = client.get(response["Location"]).text
    assert (
        "<strong>mismatched</strong>, read, but it has dialogues or turns the reference does "
        "not have." in page
    )
    assert page.count("<strong>valid</strong>") == 2
    assert "not in the reference" in page  # the scorer's own message


def test_a_valid_upload_is_scored_in_the_same_pass(client, worker, isolation):
    phase = _phase("dstc11")
    with worker():
        team, _ = _post(client, phase, {key: GOLD for key in KEYS})
    (row,) = Submission.objects.filter(team=team)
    assert worker.outcomes == ["scored"]
    assert row.status == Submission.Status.SCORED and row.charged and row.verdicts == {}
    assert row.results.filter(current=True).count() == 3
    # where a refused upload's files would be, and are not
    assert len([p for p in (isolation["private"] / "submissions").rglob("*") if p.is_file()]) == 3


def test_a_file_left_out_is_named_at_its_field_and_the_method_is_kept(client):
    phase = _phase("dstc11")
    team, response = _post(client, phase, {"alpha": GOLD, "beta": GOLD})
    fields = response.text.split('for="id_file_gamma"')[1].split("</div>")[0]
    assert "This field is required." in fields
    assert 'value="Kept tracker"' in response.text
    assert not Submission.objects.filter(team=team).exists()


def test_the_api_gives_each_files_kind_and_the_valid_ones(worker):
    from rest_framework.test import APIClient

    phase = _phase("dvd")
    team = approved_team(phase)
    api = APIClient()
    api.force_authenticate(team.created_by)
    _, _, valid, incomplete, _ = TASKS["dvd"]
    with worker():
        response = api.post(
            f"/api/v1/phases/{phase.pk}/submissions/",
            {"method_name": "api", "alpha": upload(incomplete), "beta": upload(UNREADABLE),
             "gamma": upload(valid)},
            format="multipart",
        )  # fmt: skip
    assert response.status_code == 201
    assert response.json()["status"] == "queued"
    found = api.get(f"/api/v1/submissions/{response.json()['id']}/").json()
    assert found["status"] == "invalid"
    assert {key: v["kind"] for key, v in found["verdicts"].items()} == {
        "alpha": "incomplete",
        "beta": "unreadable",
        "gamma": "valid",
    }
    assert found["error"].startswith("alpha: ") and "\nbeta: " in found["error"]
    assert found["files"] == []
