"""A refused upload says, file by file, what happened: ``incomplete`` (read, but dialogues or
turns of the reference are missing), ``mismatched`` (read, but with dialogues or turns the
reference lacks), ``unreadable`` (not a prediction file at all), ``missing``, or ``valid``; and
the form keeps the method's fields. Every task, the page and the API."""

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
def test_each_file_of_a_refused_upload_gets_its_own_verdict(client, task):
    phase = _phase(task)
    _, _, valid, incomplete, _ = TASKS[task]
    team, response = _post(client, phase, {"alpha": valid, "beta": incomplete, "gamma": UNREADABLE})
    page = response.text
    assert response.status_code == 200
    assert "2 of 3 files were refused; 1 was valid." in page
    assert "could not be read" not in page.split("<h2>The upload was not accepted</h2>")[1][:80]
    assert (
        "Beta</a> (<code>beta-run.json</code>): <strong>incomplete</strong>, read, but dialogues "
        "or turns of the reference are missing." in page
    )
    assert (
        "Gamma</a> (<code>gamma-run.json</code>): <strong>unreadable</strong>, could not be read "
        "as a prediction file in an accepted format." in page
    )
    assert "Alpha</a> (<code>alpha-run.json</code>): <strong>valid</strong>" in page
    assert "✓ alpha-run.json was valid: choose it again." in page
    # The method's fields are kept; the files must be chosen again, and the page says so.
    assert 'value="Kept tracker"' in page and "Kept description</textarea>" in page
    assert 'value="https://example.org/kept"' in page
    assert "Browsers do not keep chosen files" in page
    # Nothing queued or charged: one invalid row for the team's history.
    (row,) = Submission.objects.filter(team=team)
    assert row.status == Submission.Status.INVALID and not row.charged


@pytest.mark.parametrize("task", list(TASKS))
def test_a_file_with_dialogues_the_reference_lacks_is_mismatched(client, task):
    phase = _phase(task)
    _, _, valid, _, mismatched = TASKS[task]
    _, response = _post(client, phase, {"alpha": mismatched, "beta": valid, "gamma": valid})
    assert "1 of 3 files was refused; 2 were valid." in response.text
    assert (
        "<strong>mismatched</strong>, read, but it has dialogues or turns the reference does "
        "not have." in response.text
    )
    assert "not in the reference" in response.text  # the scorer's own message, below the field


def test_a_file_left_out_is_named_at_its_field_and_the_method_is_kept(client):
    phase = _phase("dstc11")
    team, response = _post(client, phase, {"alpha": GOLD, "beta": GOLD})
    fields = response.text.split('for="id_file_gamma"')[1].split("</div>")[0]
    assert "This field is required." in fields
    assert 'value="Kept tracker"' in response.text
    assert not Submission.objects.filter(team=team).exists()


def test_the_api_gives_each_files_kind_and_the_valid_ones(client):
    from rest_framework.test import APIClient

    phase = _phase("dvd")
    team = approved_team(phase)
    api = APIClient()
    api.force_authenticate(team.created_by)
    _, _, valid, incomplete, _ = TASKS["dvd"]
    response = api.post(
        f"/api/v1/phases/{phase.pk}/submissions/",
        {"method_name": "api", "alpha": upload(incomplete), "beta": upload(UNREADABLE),
         "gamma": upload(valid)},
        format="multipart",
    )  # fmt: skip
    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert details["kinds"] == {"alpha": "incomplete", "beta": "unreadable"}
    assert details["valid"] == ["gamma"]
    assert set(details["conditions"]) == {"alpha", "beta"}
