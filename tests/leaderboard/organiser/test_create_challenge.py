"""``create_challenge``: the task's options and the bootstrap settings are checked before
anything is written, each wrong name or value reported as a config error naming its field;
a good config's settings are what the challenge scores with; every other key and value is
checked too, each problem naming its key, all of them at once; ``--dry-run`` writes nothing and
prints each reference's counts and sha256."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.management import CommandError, call_command

from leaderboard.challenges.config import ConfigError, create_challenge, load_config
from leaderboard.challenges.models import Challenge, Reference
from scoring import Resampling
from tests.leaderboard.factories import UserFactory
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


def test_every_wrong_scorer_option_is_reported_at_once_and_nothing_is_written(tmp_path):
    path = _config(tmp_path, {"scorer_options": {"n_boot": -5, "level": 1.5}})
    with pytest.raises(CommandError) as error:
        call_command("create_challenge", str(path))
    lines = str(error.value).splitlines()
    assert "challenge.scorer_options: n_boot must be between 1 and 100000, not -5" in lines
    assert (
        "challenge.scorer_options: level must be at least 0.5 and below 1 (e.g. 0.95), not 1.5"
        in lines
    )
    assert not Challenge.objects.exists() and not Reference.objects.exists()


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


@pytest.mark.parametrize(
    ("challenge", "phase", "phrase"),
    [
        ({"organisers": ["nobody"]}, {}, "challenge.organisers: no user 'nobody'"),
        ({"organisers": "alice"}, {}, "challenge.organisers: give a list of user names"),
        ({"registration": "open"}, {}, "challenge.registration: 'open' is not one of: auto"),
        ({"max_team_size": 0}, {}, "challenge.max_team_size: must be at least 1, not 0"),
        ({"title": ""}, {}, "challenge.title: must not be empty"),
        ({"slug": "Not A Slug"}, {}, "challenge.slug: 'Not A Slug' is not a slug"),
        ({"task": ["dstc11"]}, {}, "challenge.task: give a task's name"),
        ({}, {"results_visibility": "hiden"}, "phases[0].results_visibility: 'hiden' is not one"),
        ({}, {"split_fraction": 0}, "phases[0].split_fraction: give the share of dialogues"),
        ({}, {"split_fraction": 1.5}, "phases[0].split_fraction: give the share"),
        ({}, {"split_fraction": "half"}, "phases[0].split_fraction: give the share"),
        ({}, {"max_final_selections": 0}, "phases[0].max_final_selections: must be at least 1"),
        ({}, {"daily_quota": -3}, "phases[0].daily_quota: must be at least 1, not -3"),
        ({}, {"total_quota": 2.5}, "phases[0].total_quota: give a whole number of at least 1"),
        ({}, {"split_seed": "x"}, "phases[0].split_seed: give a whole number, not 'x'"),
        ({}, {"allow_partial": "yes"}, "phases[0].allow_partial: give true or false"),
        ({}, {"show_own_public_score": 1}, "phases[0].show_own_public_score: give true or false"),
        ({}, {"ladder": "on"}, "phases[0].ladder: give true or false"),
        ({}, {"ladder": True}, "phases[0].ladder: the Ladder ranks the public part of a split"),
        (
            {},
            {"ladder": True, "split_fraction": 1},
            "phases[0].ladder: the Ladder ranks the public part of a split: set split_fraction",
        ),
        (
            {},
            {"team_chooses_public_run": "yes"},
            "phases[0].team_chooses_public_run: give true or false",
        ),
        (
            {},
            {"team_chooses_public_run": True, "ladder": True, "split_fraction": 0.5},
            "phases[0].team_chooses_public_run: with the Ladder, the Ladder decides which run",
        ),
        ({}, {"order": -1}, "phases[0].order: must be at least 0"),
        ({}, {"name": ""}, "phases[0].name: must not be empty"),
        ({}, {"slug": "a b"}, "phases[0].slug: 'a b' is not a slug"),
        ({}, {"closes_at": "2025-01-01T00:00:00Z"}, "phases[0].closes_at: must be after"),
        ({}, {"opens_at": "soon"}, "phases[0].opens_at: 'soon' is not a date-time"),
        ({}, {"colour": "red"}, "phases[0]: unknown key(s) 'colour'"),
        ({}, {"conditions": []}, "phases[0].conditions: at least one condition is required"),
        ({}, {"conditions": [{"key": "A B"}]}, "phases[0].conditions[0].key: 'A B' is not"),
        ({}, {"conditions": [{"label": "x"}]}, "phases[0].conditions[0].key: required"),
        ({}, {"conditions": [{"key": "a", "label": 5}]}, "conditions[0].label: give a text"),
        ({}, {"conditions": [{"key": "a", "order": "1"}]}, "conditions[0].order: give a whole"),
        (
            {},
            {"conditions": [{"key": "a"}, {"key": "a"}]},
            "phases[0].conditions[1].key: 'a' is already a key of this phase",
        ),
        (
            {},
            {"conditions": [{"key": "a", "reference": "missing.json"}]},
            "phases[0].conditions[0].reference: no file",
        ),
    ],
)
def test_each_bad_value_is_refused_naming_its_key_and_nothing_is_written(
    tmp_path, challenge, phase, phrase
):
    path = _config(tmp_path, challenge, [{**PHASES[0], **phase}])
    with pytest.raises(ConfigError) as error:
        create_challenge(load_config(path), tmp_path)
    assert phrase in str(error.value)
    assert not Challenge.objects.exists() and not Reference.objects.exists()
    with pytest.raises(CommandError, match="nothing was created") as error:
        call_command("create_challenge", str(path), "--dry-run")
    assert phrase in str(error.value)
    assert not Challenge.objects.exists()


def test_every_problem_is_reported_at_once_one_per_line(tmp_path):
    phase = {**PHASES[0], "daily_quota": -3, "results_visibility": "hiden"}
    path = _config(tmp_path, {"organisers": ["nobody"]}, [phase])
    with pytest.raises(ConfigError) as error:
        create_challenge(load_config(path), tmp_path)
    lines = str(error.value).splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "challenge.organisers",
        "phases[0].daily_quota",
        "phases[0].results_visibility",
    ]


def test_two_phases_with_one_slug_are_refused(tmp_path):
    path = _config(tmp_path, {}, [{**PHASES[0], "slug": "t"}, {**PHASES[0], "slug": "t"}])
    with pytest.raises(ConfigError, match=r"phases\[1\]\.slug: 't' is the slug of an earlier"):
        create_challenge(load_config(path), tmp_path)


def test_dry_run_prints_each_reference_and_writes_nothing(tmp_path, capsys):
    UserFactory(username="alice")
    path = _config(tmp_path, {"organisers": ["alice"]})
    call_command("create_challenge", str(path), "--dry-run")
    out = capsys.readouterr().out
    assert not Challenge.objects.exists() and not Reference.objects.exists()
    # tests.leaderboard.web's gold: 2 dialogues, 4 turns, slots hotel-area, hotel-bookday,
    # train-day and train-leaveat with 6 values; its sha256 computed here from the bytes.
    sha = hashlib.sha256(GOLD_BYTES).hexdigest()
    line = (
        "test / tts-verbatim: gold.json: 2 dialogues, 4 turns, 4 slots, 6 slot values; "
        f"sha256 {sha}"
    )
    assert line in out
    assert "organisers: alice" in out and "dry run: c.json is valid; nothing was written" in out
    # without --dry-run: the same summary, and the challenge is there with its organiser
    call_command("create_challenge", str(path))
    out = capsys.readouterr().out
    assert line in out and "created challenge 'c' with 1 phase(s)" in out
    challenge = Challenge.objects.get(slug="c")
    assert list(challenge.organisers.values_list("username", flat=True)) == ["alice"]
    assert Reference.objects.get().sha256 == sha
