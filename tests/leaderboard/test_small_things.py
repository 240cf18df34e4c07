"""The small things a new participant tripped over, each as they would expect it."""

from __future__ import annotations

import gzip
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from leaderboard.plotting import baseline_method, wrap_words
from leaderboard.submissions.models import Submission
from scoring import InvalidFile, Source, get_task
from scoring.dvd.synth import make_gold as make_dvd_gold
from tests.leaderboard.factories import (
    ChallengeFactory,
    UserFactory,
    approved_team,
    phase_with_references,
)
from tests.leaderboard.web import GOLD_BYTES, PREDICTION, log_in

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("task", ["dstc11", "multiwoz22", "dvd"])
def test_a_gzip_upload_is_told_compressed_files_are_not_accepted(task):
    data = gzip.compress(json.dumps(PREDICTION).encode())
    with pytest.raises(InvalidFile) as error:
        get_task(task).check_prediction(Source(data, "run.json.gz"))
    assert str(error.value) == (
        "run.json.gz: the file is gzip-compressed; compressed files are not accepted. Upload "
        "the uncompressed file."
    )


def test_a_dvd_file_sent_to_a_dstc11_phase_says_what_it_is():
    reference = get_task("dstc11").load_reference(Source(GOLD_BYTES, "gold.json"))
    dvd = json.dumps(make_dvd_gold(2, seed=1)).encode()
    with pytest.raises(InvalidFile) as error:
        get_task("dstc11").load_prediction(Source(dvd, "dvd.json"), reference)
    assert "as in a DVD-DST file (token sequences" in str(error.value)
    assert "not in the reference" not in str(error.value)


@pytest.mark.parametrize(
    ("method", "shown"),
    [
        ("TripPy", "TripPy (baseline)"),
        ("Whisper + TripPy baseline", "Whisper + TripPy baseline"),
        ("TripPy (Baseline)", "TripPy (Baseline)"),
        ("Baseline-free TripPy", "Baseline-free TripPy (baseline)"),
    ],
)
def test_a_method_that_says_it_is_a_baseline_is_not_marked_twice(method, shown):
    assert baseline_method(method) == shown


def test_a_long_team_name_is_broken_into_lines_a_phone_chart_can_hold():
    name = "Spoken Language Systems Group, Saarland University"
    assert wrap_words(name, 20) == "Spoken Language<br>Systems Group,<br>Saarland University"
    assert wrap_words("Team Beta", 20) == "Team Beta"
    # a word longer than the width keeps a line of its own
    assert wrap_words("A Supercalifragilisticexpialidocious run", 10) == (
        "A<br>Supercalifragilisticexpialidocious<br>run"
    )


@pytest.mark.parametrize(("limit", "what"), [("FILES", "files"), ("FIELDS", "fields")])
def test_too_many_files_or_fields_under_the_api_get_a_json_400(client, settings, limit, what):
    setattr(settings, f"DATA_UPLOAD_MAX_NUMBER_{limit}", 3)
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    client.force_login(team.created_by)
    payload: dict = {"method_name": "m"}

    for n in range(5):
        if what == "files":
            payload[f"f{n}"] = SimpleUploadedFile(f"{n}.json", b"{}")
        else:
            payload[f"x{n}"] = "1"
    response = client.post(f"/api/v1/phases/{phase.pk}/submissions/", payload)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_request"
    assert error["message"].startswith(f"The request sends more than 3 {what}")
    assert not Submission.objects.exists()


def test_creating_a_team_says_its_name_once(client):
    log_in(client, UserFactory())
    response = client.post(reverse("teams:create"), {"name": "Team Delta"}, follow=True)
    assert "Team Delta created." in response.text and "Team Team Delta" not in response.text


def test_registration_by_approval_reads_as_a_sentence(client):
    phase = phase_with_references(GOLD_BYTES)
    phase.challenge.registration = "approval"
    phase.challenge.save()
    page = client.get(reverse("challenges:detail", args=[phase.challenge.slug])).text
    assert "Registration needs an organiser's approval: an organiser approves" in page
    assert "Registration is organiser approval" not in page


def test_the_home_page_renders_markdown_and_lists_the_oldest_challenge_first(client):
    import datetime as dt

    main = ChallengeFactory(title="Main", description="Spoken **MultiWOZ**")
    newer = ChallengeFactory(title="Newer")
    newer.created = main.created + dt.timedelta(days=1)
    newer.save()
    page = client.get(reverse("challenges:list")).text
    assert "Spoken <strong>MultiWOZ</strong>" in page and "**" not in page
    assert page.index(">Main<") < page.index(">Newer<")


def test_the_countdown_is_followed_by_its_comma_without_a_space(client):
    phase = phase_with_references(GOLD_BYTES)  # open now
    page = client.get(reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug]))
    assert page.status_code == 200
    assert ")</span>,\n" in page.text and ")</span>\n," not in page.text
