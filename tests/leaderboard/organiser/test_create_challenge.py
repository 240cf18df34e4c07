"""``create_challenge``: the task's options and the bootstrap settings are checked before
anything is written, each wrong name or value reported as a config error naming its field;
a good config's settings are what the challenge scores with."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from leaderboard.challenges.config import ConfigError, create_challenge, load_config
from leaderboard.challenges.models import Challenge, Reference
from scoring import Resampling
from tests.leaderboard.web import GOLD_BYTES

pytestmark = pytest.mark.django_db

PHASES = [
    {
        "name": "Test",
        "opens_at": "2026-01-01T00:00:00Z",
        "closes_at": "2027-01-01T00:00:00Z",
        "conditions": [{"key": "tts-verbatim", "reference": "gold.json"}],
    }
]


def _config(tmp_path, challenge: dict, phases: list | None = None):
    (tmp_path / "gold.json").write_bytes(GOLD_BYTES)
    data = {
        "challenge": {"slug": "c", "title": "C", "task": "dstc11", **challenge},
        "phases": phases if phases is not None else PHASES,
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data))
    return path


def test_the_scorer_options_are_the_tasks_options_and_the_bootstraps(tmp_path):
    options = {"profile": "strict", "missing": "empty", "n_boot": 500, "level": 0.9, "seed": 7}
    path = _config(tmp_path, {"primary_metric": "ser", "scorer_options": options})
    challenge = create_challenge(load_config(path), tmp_path)
    assert challenge.task_options() == {"profile": "strict", "missing": "empty"}
    assert challenge.resampling() == Resampling(n_boot=500, level=0.9, seed=7)
    assert challenge.primary == "ser" and challenge.tiebreak == "jga"
    reference = Reference.objects.get(condition__phase__challenge=challenge)
    # the hand-worked gold of tests.leaderboard.web: two dialogues, four user turns
    assert (reference.summary["dialogues"], reference.summary["turns"]) == (2, 4)


@pytest.mark.parametrize(
    ("challenge", "phrase"),
    [
        ({"scorer_options": {"colour": "red"}}, "challenge.scorer_options: unknown option(s)"),
        ({"scorer_options": {"match": "fuzzy"}}, "unknown option(s) 'match' for task 'dstc11'"),
        ({"scorer_options": {"profile": "lenient"}}, "cannot be 'lenient'"),
        ({"scorer_options": {"n_boot": 0}}, "between 1 and 100000"),
        ({"scorer_options": {"n_boot": "many"}}, "n_boot must be a whole number"),
        ({"scorer_options": {"seed": 1.5}}, "seed must be a whole number"),
        ({"scorer_options": {"level": 1.5}}, "at least 0.5 and below 1"),
        ({"scorer_options": {"level": "high"}}, "level must be a number"),
        ({"scorer_options": ["n_boot"]}, "challenge.scorer_options: give a mapping"),
        ({"primary_metric": "bleu"}, "challenge.primary_metric: 'bleu' is not a metric"),
        ({"task": "chess"}, "challenge.task: unknown task 'chess'"),
        ({"colour": "red"}, "challenge: unknown key(s) 'colour'"),
    ],
)
def test_a_wrong_setting_is_a_config_error_and_nothing_is_written(tmp_path, challenge, phrase):
    path = _config(tmp_path, challenge)
    with pytest.raises(ConfigError) as error:
        create_challenge(load_config(path), tmp_path)
    assert phrase in str(error.value)
    assert not Challenge.objects.exists() and not Reference.objects.exists()
    # the command says the same, as a command error
    with pytest.raises(CommandError, match="challenge"):
        call_command("create_challenge", str(path))


def test_a_condition_takes_only_the_reference_files_of_its_task(tmp_path):
    (tmp_path / "schema.json").write_text("[]")
    phases = [{**PHASES[0], "conditions": [{"key": "t", "reference": "gold.json", "schem": "x"}]}]
    path = _config(tmp_path, {}, phases)
    with pytest.raises(
        ConfigError, match=r"phases\[0\]\.conditions\[0\]: unknown key\(s\) 'schem'"
    ):
        create_challenge(load_config(path), tmp_path)
    # ``schema`` is a file of multiwoz22, not of dstc11
    phases[0]["conditions"][0] = {"key": "t", "reference": "gold.json", "schema": "schema.json"}
    path = _config(tmp_path, {}, phases)
    with pytest.raises(ConfigError) as error:
        create_challenge(load_config(path), tmp_path)
    assert "unknown key(s) 'schema'" in str(error.value)
    assert "reference, training_values" in str(error.value)
    assert not Challenge.objects.exists()
