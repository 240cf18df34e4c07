"""One Result shape for every task through the API: the submission detail gives every metric
of the task with its interval, in the task's order, the signature, the reference's sha256 and
the breakdown; a split phase shows a team the public part only until the reveal; the
challenge's ``scoring`` block describes the task as the server checks files.

Expected numbers are worked out by hand from the tiny references (``tests/leaderboard/web.py``
for dstc11, ``tests/leaderboard/task_data.py`` for the others). Each has two dialogues, so a
bootstrap resample holds the first twice, the second twice, or one of each: with 200
resamples about a quarter fall on each extreme, so the 95% percentile interval runs from the
worse to the better of the two single-dialogue values.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.challenges.models import Phase
from leaderboard.challenges.split import part_of
from leaderboard.submissions import services
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.boards import built
from tests.leaderboard.factories import (
    KEYS,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.task_data import (
    DVD_GOLD,
    DVD_PARTIAL,
    MWZ_GOLD,
    MWZ_PARTIAL,
    SCHEMA,
    make_phase,
)
from tests.leaderboard.web import GOLD, GOLD_BYTES, PREDICTION

pytestmark = pytest.mark.django_db

#: task -> (gold, reference files, prediction, {metric: (value, [low, high] or None)}, format)
#: (an interval of None: the metric's interval is not checked, only that it has two bounds)
CASES = {
    # mul0001: both turns right, no error in 3 gold values; sng0002: turn 2 wrong (leaveat),
    # 1 substitution in 3 gold values. JGA 3/4, SER 1/6; slot F1 = 2 TP / (n_pred + n_ref)
    # = 10 / 12, reported without an interval.
    "dstc11": (
        GOLD_BYTES,
        None,
        PREDICTION,
        {
            "jga": (75.0, [50.0, 100.0]),
            "ser": (100 / 6, [0.0, 100 / 3]),
            "slot_f1": (1000 / 12, "none"),
        },
        "gold-json",
    ),
    # d1: two turns right (the second through the second listed name); d2: the name wrong.
    # Every turn has the hotel's categorical area and non-categorical name slots. Average
    # goal accuracy over frames with active slots: t1 1, t2 1, d2 0. Flat states carry no
    # intents nor requested slots: those two metrics are not reported.
    "multiwoz22": (
        json.dumps(MWZ_GOLD).encode(),
        {"schema": (json.dumps(SCHEMA).encode(), "schema.json")},
        MWZ_PARTIAL,
        {
            "jga": (200 / 3, [0.0, 100.0]),
            "jga_cat": (100.0, [100.0, 100.0]),
            "jga_noncat": (200 / 3, [0.0, 100.0]),
            "avg_goal": (200 / 3, [0.0, 100.0]),
            "avg_cat": (100.0, None),
            "avg_noncat": (50.0, [0.0, 100.0]),
        },
        "flat-states",
    ),
    # v1: turn 1 right, turn 2 a wrong shape (1 of 2 triples right); v2 right. Segments agree
    # (none on v1's turn 2), so the IoU joints equal Joint Acc. State F1 (2 TP / (|gold| +
    # |pred|)): v1 (4 + 2) / (4 + 4), v2 2 / 2: 8 / 10; objects and slots all right.
    "dvd": (
        json.dumps(DVD_GOLD).encode(),
        None,
        DVD_PARTIAL,
        {
            "joint": (200 / 3, [50.0, 100.0]),
            "joint_iou50": (200 / 3, [50.0, 100.0]),
            "joint_iou70": (200 / 3, [50.0, 100.0]),
            "object_f1": (100.0, [100.0, 100.0]),
            "slot_f1": (100.0, [100.0, 100.0]),
            "state_f1": (80.0, [75.0, 100.0]),
        },
        "token-sequence",
    ),
}


def _task_phase(task: str):
    gold, files, *_ = CASES[task]
    if task == "dstc11":
        return phase_with_references(gold, keys=("test",))
    return make_phase(task, gold, files)


def _submit_and_score(phase, prediction, keys=("test",)) -> tuple[int, object]:
    team = approved_team(phase)
    client = token_client(team.created_by)
    files = {
        key: SimpleUploadedFile(f"{key}.json", json.dumps(prediction).encode()) for key in keys
    }
    created = client.post(
        f"/api/v1/phases/{phase.pk}/submissions/", {"method_name": "m", **files}, format="multipart"
    )
    assert created.status_code == 201, created.content
    assert services.run_scoring(created.json()["id"]) == "scored"
    return created.json()["id"], team


def _check(metrics: dict, expected: dict) -> None:
    assert list(metrics) == list(expected)
    for name, (value, interval) in expected.items():
        got = metrics[name]
        assert got["value"] == pytest.approx(value), name
        if interval == "none":
            assert got["ci"] is None, name
        elif interval is None:
            assert len(got["ci"]) == 2, name
        else:
            assert got["ci"] == pytest.approx(interval), name


@pytest.mark.parametrize("task", list(CASES))
def test_each_tasks_submission_detail_gives_every_metric_with_its_interval(task):
    gold, _files, prediction, expected, found_format = CASES[task]
    phase = _task_phase(task)
    submission_id, team = _submit_and_score(phase, prediction)

    body = token_client(team.created_by).get(f"/api/v1/submissions/{submission_id}/").json()
    assert body["results_visible"] is True
    described = phase.challenge.scoring_task().describe()["metrics"]
    assert [m["name"] for m in body["metrics"]] == [m["name"] for m in described]
    assert all(set(m) >= {"name", "label", "direction", "interval"} for m in body["metrics"])
    (result,) = body["results"].values()
    assert result["condition"] == "test" and result["part"] == "all"
    _check(result["metrics"], expected)
    # Nothing of another task's shape, and no metric left null.
    assert "jga_ci" not in result and "ser" not in result
    assert all(m["value"] is not None for m in result["metrics"].values())
    assert result["signature"].startswith(f"{task}|")
    assert "ci:bootstrap-200-dialogue-95" in result["signature"]
    assert result["reference_sha256"] == hashlib.sha256(gold).hexdigest()
    breakdown = result["breakdown"]
    assert breakdown["format"] == found_format
    assert breakdown["counts"]["dialogues"] == 2
    assert breakdown["counts"]["turns"] == (4 if task == "dstc11" else 3)
    assert isinstance(breakdown["details"], dict) and isinstance(breakdown["warnings"], list)


def test_a_multiwoz22_flat_states_result_carries_the_scorers_warning():
    _gold, _files, prediction, *_ = CASES["multiwoz22"]
    phase = _task_phase("multiwoz22")
    submission_id, team = _submit_and_score(phase, prediction)
    body = token_client(team.created_by).get(f"/api/v1/submissions/{submission_id}/").json()
    (warning,) = body["results"]["test"]["breakdown"]["warnings"]
    assert "flat states carry no intents" in warning
    assert body["results"]["test"]["breakdown"]["details"]["match"] == "exact"


def _split_seed(phase, dialogues) -> dict[str, str]:
    """Give ``phase`` a split seed that puts one of the two dialogues in each part."""
    for seed in range(100):
        Phase.objects.filter(pk=phase.pk).update(split_fraction=0.5, split_seed=seed)
        phase.refresh_from_db()
        parts = {d: part_of(phase, d) for d in dialogues}
        if sorted(parts.values()) == ["private", "public"]:
            return parts
    raise AssertionError("no seed splits the two dialogues")


#: dstc11's tiny reference per dialogue: (JGA, SER) on that dialogue alone
DSTC11_PER_DIALOGUE = {"mul0001": (100.0, 0.0), "sng0002": (50.0, 100 / 3)}


@pytest.mark.parametrize(
    ("visibility", "own_public"),
    [(Phase.Visibility.HIDDEN, True), (Phase.Visibility.PUBLIC, False)],
)
def test_a_split_phase_shows_the_team_its_public_part_only(visibility, own_public):
    phase = phase_with_references(GOLD_BYTES)
    parts = _split_seed(phase, GOLD)
    Phase.objects.filter(pk=phase.pk).update(
        results_visibility=visibility, show_own_public_score=own_public
    )
    submission_id, team = _submit_and_score(phase, PREDICTION, KEYS)
    public = next(d for d, p in parts.items() if p == "public")
    jga, ser = DSTC11_PER_DIALOGUE[public]

    body = token_client(team.created_by).get(f"/api/v1/submissions/{submission_id}/").json()
    assert body["results_visible"] is True
    assert list(body["results"]) == list(KEYS)
    for result in body["results"].values():
        assert result["part"] == "public"
        assert result["metrics"]["jga"]["value"] == pytest.approx(jga)
        assert result["metrics"]["ser"]["value"] == pytest.approx(ser)
        # one dialogue: every resample is that dialogue
        assert result["metrics"]["jga"]["ci"] == pytest.approx([jga, jga])
        # nothing of the whole reference or of the private part
        assert "breakdown" not in result and "parts" not in result
        assert result["metrics"]["jga"]["value"] != pytest.approx(75.0)
        assert result["signature"].startswith("dstc11|")


def test_a_hidden_phase_without_own_public_scores_shows_status_only():
    phase = phase_with_references(GOLD_BYTES)
    _split_seed(phase, GOLD)
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    submission_id, team = _submit_and_score(phase, PREDICTION, KEYS)
    body = token_client(team.created_by).get(f"/api/v1/submissions/{submission_id}/").json()
    assert body["status"] == "scored"
    assert body["results_visible"] is False and body["results"] == {}


def test_the_organiser_sees_every_number_and_each_part_of_a_split():
    phase = phase_with_references(GOLD_BYTES)
    parts = _split_seed(phase, GOLD)
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    submission_id, _team = _submit_and_score(phase, PREDICTION, KEYS)
    organiser = approved_team(phase).created_by
    phase.challenge.organisers.add(with_second_factor(organiser))

    body = token_client(organiser).get(f"/api/v1/submissions/{submission_id}/").json()
    result = body["results"]["tts-verbatim"]
    assert result["part"] == "all"
    assert result["metrics"]["jga"]["value"] == pytest.approx(75.0)
    for dialogue, part in parts.items():
        jga, ser = DSTC11_PER_DIALOGUE[dialogue]
        assert result["parts"][part]["jga"]["value"] == pytest.approx(jga)
        assert result["parts"][part]["ser"]["value"] == pytest.approx(ser)
    assert result["breakdown"]["details"]["n_ref"] == 6


@pytest.mark.parametrize("task", list(CASES))
def test_the_challenge_scoring_block_describes_the_task_for_a_local_check(task):
    phase = _task_phase(task)
    body = token_client().get(f"/api/v1/challenges/{phase.challenge.slug}/").json()
    scoring = body["scoring"]
    described = phase.challenge.scoring_task().describe()
    assert scoring["task"] == task and body["task"] == task
    assert scoring["options"] == {o["name"]: o["default"] for o in described["options"]}
    assert scoring["formats"] == described["formats"]
    assert [(m["name"], m["label"], m["direction"], m["interval"]) for m in scoring["metrics"]] == [
        (m["name"], m["label"], m["direction"], m["interval"]) for m in described["metrics"]
    ]
    assert scoring["primary"] == described["primary"] == body["primary_metric"]
    assert scoring["tiebreak"] == described["tiebreak"]
    assert [f["name"] for f in scoring["reference_files"]] == [
        f["name"] for f in described["reference_files"]
    ]
    # the factories' bootstrap settings, as the signature of every Result names them
    assert scoring["resampling"] == {"n_boot": 200, "level": 0.95, "seed": 12345}
    assert "scoring_settings" not in scoring and "profile" not in scoring


def test_the_scoring_block_gives_the_challenges_own_options_and_ranked_metric():
    phase = phase_with_references(GOLD_BYTES)
    challenge = phase.challenge
    challenge.scorer_options = {"profile": "strict", "missing": "empty", "n_boot": 500}
    challenge.primary_metric = "ser"
    challenge.save()
    body = token_client().get(f"/api/v1/challenges/{challenge.slug}/").json()
    assert body["scoring"]["options"] == {"profile": "strict", "missing": "empty"}
    assert body["scoring"]["primary"] == "ser" and body["scoring"]["tiebreak"] == "jga"
    assert body["scoring"]["resampling"]["n_boot"] == 500
    assert body["primary_metric"] == "ser"


def test_another_tasks_leaderboard_and_its_csv_have_the_tasks_columns():
    import csv
    import io

    phase = _task_phase("dvd")
    _submit_and_score(phase, DVD_PARTIAL)
    built(phase)  # as the board's worker builds it after the scoring
    client = token_client()
    url = f"/api/v1/phases/{phase.pk}/leaderboard/"
    board = client.get(url, {"condition": "test"}).json()
    names = [m["name"] for m in board["metrics"]]
    assert names == ["joint", "joint_iou50", "joint_iou70", "object_f1", "slot_f1", "state_f1"]
    assert board["metrics"][0]["primary"] is True and board["part"] == "all"
    (row,) = board["results"]
    assert list(row["metrics"]) == names
    assert row["metrics"]["state_f1"]["value"] == pytest.approx(80.0)
    assert row["metrics"]["state_f1"]["ci"] == pytest.approx([75.0, 100.0])
    overview = client.get(url).json()
    (first,) = overview["results"]
    assert first["means"] == pytest.approx({"joint": 200 / 3, "joint_iou50": 200 / 3})
    assert first["per_condition"]["test"] == pytest.approx(first["means"])

    text = client.get(url, {"condition": "test", "format": "csv"}).content.decode()
    (line,) = csv.DictReader(io.StringIO(text))
    assert line["state_f1"] == "80.0000" and line["state_f1_low"] == "75.0000"
    assert "jga" not in line and "ser" not in line
    text = client.get(url, {"format": "csv"}).content.decode()
    (line,) = csv.DictReader(io.StringIO(text))
    assert line["joint"] == "66.6667" and line["test_joint_iou50"] == "66.6667"


def test_the_submission_detail_reads_a_fixed_number_of_queries_whatever_its_conditions():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = []
    for keys in (("test",), KEYS):
        phase = phase_with_references(GOLD_BYTES, keys=keys)
        submission_id, team = _submit_and_score(phase, PREDICTION, keys)
        client = token_client(team.created_by)
        with CaptureQueriesContext(connection) as queries:
            body = client.get(f"/api/v1/submissions/{submission_id}/").json()
        assert len(body["results"]) == len(keys)
        counts.append(len(queries))
    assert counts[0] == counts[1]
