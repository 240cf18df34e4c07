"""Declared system facts: the declarations checked (the config file and the admin, each
problem named), and what an upload says about its system checked by the web form, the API and
``submit``: a required field missing or a bad value refused naming the field, before anything
is stored or charged."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from leaderboard.challenges.admin import ChallengeForm
from leaderboard.challenges.config import ConfigError, check_config, load_config
from leaderboard.challenges.facts import check_facts, declaration_problems, declared
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission, SubmissionFile
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS, approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, log_in, prediction_file, submit_payload

pytestmark = pytest.mark.django_db

ASR = {
    "key": "asr",
    "label": "ASR system",
    "kind": "choice",
    "required": True,
    "choices": ["provided ASR", "Whisper", "other"],
}
PARAMS = {"key": "params", "label": "Parameters", "kind": "number", "unit": "billion"}
EXTERNAL = {"key": "external-data", "label": "External data", "kind": "flag"}
DECLARED = [ASR, PARAMS, EXTERNAL]


@pytest.fixture
def phase():
    phase = phase_with_references(GOLD_BYTES)
    phase.challenge.system_facts = DECLARED
    phase.challenge.save()
    return phase


@pytest.fixture
def team(phase):
    return approved_team(phase)


def _nothing_kept(team, phase) -> None:
    assert not Submission.objects.exists()
    assert not SubmissionFile.objects.exists()
    assert services.quota_usage(team, phase) == (0, 0)


# --- declarations ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "phrase"),
    [
        ({**ASR, "key": "ASR system"}, "[0].key: give a slug"),
        ({**ASR, "kind": "list"}, "[0].kind: 'list' is not one of: text, choice, number, flag"),
        ({**ASR, "choices": []}, "[0].choices: give a list of the allowed values"),
        ({**ASR, "required": "yes"}, "[0].required: give true or false, not 'yes'"),
        ({**PARAMS, "choices": ["a"]}, "[0].choices: only a field of kind choice has choices"),
        ({**ASR, "unit": "b"}, "[0].unit: only a field of kind number has a unit"),
        ({**ASR, "colour": "red"}, "[0]: unknown key(s) 'colour'"),
        ({**ASR, "label": ""}, "[0].label: give a text of 1 to 100 characters"),
    ],
)
def test_each_problem_of_a_declaration_is_named(spec, phrase):
    problems = declaration_problems([spec])
    assert any(p.startswith(phrase) for p in problems), problems


def test_a_key_declared_twice_is_named():
    assert declaration_problems([ASR, {**PARAMS, "key": "asr"}]) == [
        "[1].key: 'asr' is the key of an earlier field"
    ]


@pytest.mark.parametrize("key", ["rank", "team", "method", "jga", "jga_low", "source"])
def test_a_key_that_names_an_export_column_is_refused(key):
    (problem,) = declaration_problems([{**ASR, "key": key}])
    assert problem.startswith(f"[0].key: {key!r} names a column the exports already have")


def test_create_challenge_reports_every_declaration_problem_naming_its_key(tmp_path):
    (tmp_path / "gold.json").write_bytes(GOLD_BYTES)
    facts = [{**ASR, "kind": "list"}, {**PARAMS, "key": "Params"}]
    data = {
        "challenge": {"slug": "c", "title": "C", "task": "dstc11", "system_facts": facts},
        "phases": [
            {
                "name": "Test",
                "opens_at": "2026-01-01T00:00:00Z",
                "closes_at": "2027-01-01T00:00:00Z",
                "conditions": [{"key": "tts-verbatim", "reference": "gold.json"}],
            }
        ],
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as refused:
        check_config(load_config(path), tmp_path)
    lines = str(refused.value).splitlines()
    assert any(line.startswith("challenge.system_facts[0].kind: 'list'") for line in lines)
    assert any(line.startswith("challenge.system_facts[1].key: give a slug") for line in lines)
    data["challenge"]["system_facts"] = "asr"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match=r"challenge\.system_facts: give a list of fields"):
        check_config(load_config(path), tmp_path)


def test_the_admin_form_puts_the_declaration_problems_on_the_field(phase):
    challenge = phase.challenge
    data = {
        "slug": challenge.slug,
        "title": challenge.title,
        "task": challenge.task,
        "registration": challenge.registration,
        "scorer_options": "{}",
        "created_0": "2026-01-01",
        "created_1": "00:00:00",
        "system_facts": json.dumps([{**ASR, "choices": "Whisper"}]),
    }
    form = ChallengeForm(data, instance=challenge)
    assert not form.is_valid()
    assert form.errors["system_facts"] == ["[0].choices: give a list of the allowed values (texts)"]


# --- values ---------------------------------------------------------------------------------


def test_the_values_are_checked_and_stored_by_their_kind():
    values, problems = check_facts(
        declared(DECLARED), {"asr": "Whisper", "params": " 0.77 ", "external-data": "Yes"}
    )
    assert problems == {}
    assert values == {"asr": "Whisper", "params": 0.77, "external-data": True}
    # an empty optional field is left out; a whole number is stored whole
    assert check_facts(declared(DECLARED), {"asr": "other", "params": "11", "external-data": ""})[
        0
    ] == {"asr": "other", "params": 11}


@pytest.mark.parametrize(
    ("given", "key", "message"),
    [
        (
            {},
            "asr",
            "ASR system (asr) is required: give one of: provided ASR, Whisper, other",
        ),
        (
            {"asr": "whisper"},
            "asr",
            "ASR system (asr): 'whisper' is not one of: provided ASR, Whisper, other",
        ),
        (
            {"asr": "Whisper", "params": "large"},
            "params",
            "Parameters (params): give a number (in billion), not 'large'",
        ),
        (
            {"asr": "Whisper", "params": "nan"},
            "params",
            "Parameters (params): give a finite number (in billion), not 'nan'",
        ),
        (
            {"asr": "Whisper", "external-data": "maybe"},
            "external-data",
            "External data (external-data): give yes or no, not 'maybe'",
        ),
        (
            {"asr": "Whisper", "gpu": "A100"},
            "gpu",
            "'gpu' is not a declared field of this challenge (its fields: asr, params, "
            "external-data)",
        ),
    ],
)
def test_a_missing_or_bad_value_is_refused_naming_the_field(given, key, message):
    assert check_facts(declared(DECLARED), given)[1] == {key: message}


def test_submit_refuses_a_missing_required_field_storing_and_charging_nothing(team, phase):
    files = {key: prediction_file() for key in KEYS}
    with pytest.raises(services.FactsRefused) as refused:
        services.submit(
            team=team, phase=phase, user=team.created_by, files=files, method_name="m",
            facts={"params": "3"},
        )  # fmt: skip
    assert refused.value.messages == {
        "asr": "ASR system (asr) is required: give one of: provided ASR, Whisper, other"
    }
    _nothing_kept(team, phase)


def test_the_web_form_shows_the_refusal_on_the_field_and_keeps_nothing(client, team, phase):
    log_in(client, team.created_by)
    url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
    page = client.get(url).text
    assert 'name="fact_asr"' in page and "Parameters (billion)" in page
    response = client.post(url, submit_payload(fact_params="big"))
    assert response.status_code == 200
    page = response.text
    assert "ASR system (asr) is required: give one of: provided ASR, Whisper, other" in page
    assert "Parameters (params): give a number (in billion), not &#x27;big&#x27;" in page
    _nothing_kept(team, phase)


def test_the_web_form_stores_the_checked_values(client, team, phase, enqueued):
    log_in(client, team.created_by)
    url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
    payload = submit_payload(fact_asr="Whisper", fact_params="0.77", **{"fact_external-data": "no"})
    response = client.post(url, payload)
    assert response.status_code == 302
    (row,) = Submission.objects.all()
    assert row.facts == {"asr": "Whisper", "params": 0.77, "external-data": False}
    assert row.charged


def _api_submit(team, phase, **facts):
    payload = {"method_name": "Tracker", **{key: prediction_file() for key in KEYS}}
    payload.update({f"fact.{key}": value for key, value in facts.items()})
    return token_client(team.created_by).post(
        f"/api/v1/phases/{phase.pk}/submissions/", payload, format="multipart"
    )


def test_the_api_refuses_a_missing_required_field_naming_it_and_keeps_nothing(team, phase):
    response = _api_submit(team, phase, params="1.5")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert "nothing was stored or charged" in error["message"]
    assert error["details"] == {
        "fact.asr": ["ASR system (asr) is required: give one of: provided ASR, Whisper, other"]
    }
    _nothing_kept(team, phase)


def test_the_api_refuses_a_bad_choice_and_stores_good_values(team, phase, enqueued):
    response = _api_submit(team, phase, asr="Kaldi")
    assert response.json()["error"]["details"] == {
        "fact.asr": ["ASR system (asr): 'Kaldi' is not one of: provided ASR, Whisper, other"]
    }
    _nothing_kept(team, phase)
    response = _api_submit(team, phase, asr="provided ASR", params="11")
    assert response.status_code == 201
    assert response.json()["facts"] == {"asr": "provided ASR", "params": 11}


def test_the_challenge_api_lists_the_declarations(phase):
    body = token_client().get(f"/api/v1/challenges/{phase.challenge.slug}/").json()
    assert [f["key"] for f in body["system_facts"]] == ["asr", "params", "external-data"]
    assert body["system_facts"][1]["unit"] == "billion"
