"""What a participant starts from, taken from the challenge page alone: a sample submission per
condition (uploaded as it is, it is scored), the task's public files and the phase's files.

Hand-worked (tests/scoring/test_samples.py): each gold has three user turns of which one has
an empty state, so the sample (every state empty) scores 1/3 = 33.33 on the primary metric.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from leaderboard.challenges.models import PhaseFile
from tests.leaderboard.factories import ConditionFactory, PhaseFactory
from tests.leaderboard.task_data import make_phase, submit_through_the_page
from tests.scoring.test_samples import CASES

pytestmark = pytest.mark.django_db

TRAINING = json.dumps(["hotel-area=north"]).encode()


def _files(task: str) -> dict:
    extra = {
        name: (json.dumps(value).encode(), f"{name}.json") for name, value in CASES[task][1].items()
    }
    if task != "dvd":
        extra["training_values"] = (TRAINING, "train-values.json")
    return extra


def _page(client, phase) -> str:
    response = client.get(reverse("challenges:detail", args=[phase.challenge.slug]))
    assert response.status_code == 200
    return response.text


def _links(page: str, name: str) -> list[str]:
    return re.findall(r'href="([^"]*/data/[^"]*' + re.escape(name) + r'[^"]*)"', page)


@pytest.mark.parametrize("task", sorted(CASES))
def test_the_sample_from_the_challenge_page_is_accepted_and_scored(client, isolation, task):
    gold, _, primary, secrets = CASES[task]
    raw = json.dumps(gold).encode()
    phase = make_phase(task, raw, _files(task))
    page = _page(client, phase)
    assert "2 dialogues, 3 user turns" in page
    (link,) = _links(page, "sample.json")
    response = client.get(link)
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    sample = b"".join(response.streaming_content) if response.streaming else response.content
    for secret in secrets:
        assert secret not in sample.decode().lower()
    # the API gives the same file, linked from the challenge's conditions
    api = client.get(reverse("api:challenge", args=[phase.challenge.slug])).json()
    (condition,) = api["phases"][0]["conditions"]
    assert client.get(condition["sample"]).content == sample
    submission = submit_through_the_page(client, phase, sample, "empty states")
    result = submission.results.get()
    assert result.primary == pytest.approx(100 / 3)
    assert result.metrics[primary] == pytest.approx(100 / 3)


@pytest.mark.parametrize("task", ["dstc11", "multiwoz22"])
def test_the_public_reference_files_are_listed_with_size_and_sha256_and_the_gold_never(
    client, isolation, task
):
    gold = json.dumps(CASES[task][0]).encode()
    phase = make_phase(task, gold, _files(task))
    page = _page(client, phase)
    assert hashlib.sha256(gold).hexdigest() not in page
    assert not _links(page, "gold")
    expected = {name: blob for name, (blob, _) in _files(task).items()}
    for name, blob in expected.items():
        (link,) = _links(page, f"/{name}/")
        assert hashlib.sha256(blob).hexdigest() in page
        response = client.get(link)
        assert b"".join(response.streaming_content) == blob
    if task == "multiwoz22":
        assert f"{len(expected['schema'])}\xa0bytes" in page


def test_a_reference_file_the_task_does_not_mark_public_is_not_served(client, isolation):
    phase = make_phase("dvd", json.dumps(CASES["dvd"][0]).encode())
    url = reverse(
        "challenges:reference_file", args=[phase.challenge.slug, phase.slug, "test", "gold"]
    )
    assert client.get(url).status_code == 404


def test_a_file_published_with_the_phase_is_listed_and_downloaded(client, isolation):
    phase = make_phase("dvd", json.dumps(CASES["dvd"][0]).encode())
    content = b"line_nr: 0 dialog_id: v1.json turn_id: 0 text: user: hello\n"
    stored = PhaseFile(phase=phase, title="Test inputs", original_name="inputs.txt")
    stored.size, stored.sha256 = len(content), hashlib.sha256(content).hexdigest()
    stored.file.save("x", ContentFile(content), save=False)
    stored.save()
    page = _page(client, phase)
    assert "Test inputs" in page and stored.sha256 in page and "59\xa0bytes" in page
    (link,) = re.findall(r'href="([^"]*/data/files/\d+/)"', page)
    response = client.get(link)
    assert b"".join(response.streaming_content) == content
    assert 'filename="inputs.txt"' in response["Content-Disposition"]


def test_a_condition_without_a_reference_offers_no_sample(client, isolation):
    phase = PhaseFactory()
    ConditionFactory(phase=phase, key="test", label="Test set")
    page = _page(client, phase)
    assert "Nothing to download for this phase yet." in page
    url = reverse("challenges:sample", args=[phase.challenge.slug, phase.slug, "test"])
    assert client.get(url).status_code == 404
    api = reverse("api:sample", args=[phase.pk, "test"])
    assert client.get(api).json()["error"]["message"] == "This condition has no reference yet."


def test_the_admin_form_takes_the_name_size_and_sha256_from_the_upload(isolation):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from leaderboard.challenges.admin import PhaseFileForm

    phase = PhaseFactory()
    upload = SimpleUploadedFile("asr-transcripts.txt", b"hello\n")
    form = PhaseFileForm(
        {"title": "ASR transcripts", "description": ""},
        {"file": upload},
        instance=PhaseFile(phase=phase),
    )
    assert form.is_valid(), form.errors
    stored = form.save()
    # sha256 of b"hello\n", as `printf 'hello\n' | sha256sum` prints it
    assert stored.sha256 == "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
    assert (stored.size, stored.original_name) == (6, "asr-transcripts.txt")
    with stored.file.open("rb") as handle:
        assert handle.read() == b"hello\n"
