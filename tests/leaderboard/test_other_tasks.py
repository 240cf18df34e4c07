"""The other tasks on the site: MultiWOZ 2.2 and DVD-DST challenges run end to end (upload through
the submit page, scoring by the Celery task body, leaderboard and API with the task's own
metrics, directions and charts), plus the team's pages, the split and the exports of such
results, and reference files (schema, training values) from create_challenge.

Every expected number is worked out by hand from the tiny references in ``task_data`` (three
user turns each), never read back from the scorer.
"""

from __future__ import annotations

import csv
import json
import re

import pytest
from django.urls import reverse

from leaderboard.challenges.services import add_reference
from leaderboard.submissions import tasks
from leaderboard.submissions.models import Result, Submission
from tests.leaderboard.boards import leaderboard
from tests.leaderboard.factories import (
    ChallengeFactory,
    ConditionFactory,
    PhaseFactory,
    approved_team,
    upload,
)
from tests.leaderboard.task_data import (
    DVD_EMPTY,
    DVD_GOLD,
    DVD_PARTIAL,
    DVD_PERFECT,
    MWZ_EMPTY,
    MWZ_GOLD,
    MWZ_PARTIAL,
    MWZ_PERFECT,
    OPTIONS,
    SCHEMA,
    board_page,
    make_phase,
    submit_through_the_page,
)
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db

TASKS = {
    "multiwoz22": (
        json.dumps(MWZ_GOLD).encode(),
        {"schema": (json.dumps(SCHEMA).encode(), "schema.json")},
        (MWZ_PERFECT, MWZ_PARTIAL, MWZ_EMPTY),
        "jga",
        {"jga": (100.0, 200 / 3, 0.0), "jga_cat": (100.0, 100.0, 100 / 3)},
        ("JGA [95% CI]", "Cat. JGA [95% CI]", "Non-cat. JGA [95% CI]", "Req. slot F1 [95% CI]"),
    ),
    "dvd": (
        json.dumps(DVD_GOLD).encode(),
        None,
        (DVD_PERFECT, DVD_PARTIAL, DVD_EMPTY),
        "joint",
        {"joint": (100.0, 200 / 3, 0.0)},
        ("Joint Acc [95% CI]", "Joint Acc IoU@0.5 [95% CI]", "State F1 [95% CI]"),
    ),
}


@pytest.mark.parametrize("task", list(TASKS))
def test_a_challenge_of_another_task_runs_end_to_end_with_its_own_metrics(client, task, enqueued):
    gold, files, predictions, primary, expected, headers = TASKS[task]
    phase = make_phase(task, gold, files)
    # submitted worst first, so the ranking has to reorder them
    for prediction, method in zip(
        reversed(predictions), ("empty", "partial", "perfect"), strict=True
    ):
        submit_through_the_page(client, phase, prediction, method)

    by_method = {r.submission.method_name: r for r in Result.objects.select_related("submission")}
    for metric, values in expected.items():
        got = [by_method[m].metrics[metric] for m in ("perfect", "partial", "empty")]
        assert got == pytest.approx(list(values))
    assert by_method["partial"].primary == pytest.approx(200 / 3)
    assert "ser" not in by_method["partial"].metrics  # no dstc11 metric is filled in
    assert by_method["partial"].signature.startswith(f"{task}|")

    (board,) = leaderboard(phase).conditions
    assert [(r.method_name, r.rank) for r in board.rows] == [
        ("perfect", 1),
        ("partial", 2),
        ("empty", 3),
    ]
    page = board_page(client, phase)
    text = re.sub(r"<[^>]+>", "", page)  # a header's interval note is a span of its own
    for header in headers:
        assert header in text
    assert "SER [95% CI]" not in text
    label = phase.challenge.scoring_task().metric(primary).label
    assert f"ranked by {label} (higher is better)" in page
    assert "66.67" in page
    charts = json.loads(page.split('id="chart-data" type="application/json">')[1].split("<")[0])
    assert f"chart-{primary.replace('_', '-')}-test" in charts or f"chart-{primary}-test" in charts
    assert "chart-scatter" in charts

    api = client.get(f"/api/v1/phases/{phase.pk}/leaderboard/", {"condition": "test"}).json()
    described = {
        m["name"]: m["direction"] for m in phase.challenge.scoring_task().describe()["metrics"]
    }
    assert api["metrics"][0]["name"] == primary
    assert all(m["direction"] == described[m["name"]] for m in api["metrics"])
    assert [r["method_name"] for r in api["results"]] == ["perfect", "partial", "empty"]
    assert api["results"][1]["metrics"][primary]["value"] == pytest.approx(200 / 3)

    # one condition: its table is the ranking, shown once, with no "over the 1 condition"
    assert 'id="overview-table"' not in page and 'id="overview-heading"' not in page
    assert page.count('<table class="ranking"') == 1
    assert "over the 1 condition" not in page and "per condition" not in text
    assert 'id="chart-scatter"' in page  # the scatter stays, beside the condition's bars
    # the API's overview still answers, with the condition's ranking and numbers
    overview = client.get(f"/api/v1/phases/{phase.pk}/leaderboard/").json()
    assert [(r["method_name"], r["rank"]) for r in overview["results"]] == [
        ("perfect", 1),
        ("partial", 2),
        ("empty", 3),
    ]


def test_an_invalid_upload_for_another_task_is_refused_with_the_scorers_message(client, worker):
    phase = make_phase("dvd", json.dumps(DVD_GOLD).encode())
    team = approved_team(phase)
    log_in(client, team.created_by)
    url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
    with worker():
        response = client.post(
            url, {"method_name": "m", "file_test": upload({"v1": ["", ""]}, "short.json")}
        )
    assert worker.outcomes == ["invalid"]
    page = client.get(response["Location"]).text
    assert "Why the upload was not accepted" in page
    assert "<strong>incomplete</strong>" in page
    assert "v2" in page  # the missing dialogue is named


def test_a_multiwoz22_reference_needs_its_schema():
    import scoring

    challenge = ChallengeFactory(task="multiwoz22", scorer_options=OPTIONS)
    condition = ConditionFactory(phase=PhaseFactory(challenge=challenge), key="test")
    with pytest.raises(scoring.ScoringError, match="Schema"):
        add_reference(condition, json.dumps(MWZ_GOLD).encode(), "gold.json")


def test_the_teams_pages_of_another_tasks_result_render(client, enqueued):
    phase = make_phase("dvd", json.dumps(DVD_GOLD).encode())
    first = submit_through_the_page(client, phase, DVD_PARTIAL, "partial")
    team = first.team
    second = Submission.objects.get(pk=_resubmit(client, phase, team, DVD_PERFECT, "perfect").pk)
    log_in(client, team.created_by)
    for url in (
        reverse("submissions:detail", args=[first.pk]),
        reverse("submissions:status", args=[first.pk]),
        reverse("submissions:mine", args=[phase.challenge.slug, phase.slug]),
        reverse("submissions:compare", args=[first.pk]) + f"?with={second.pk}",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
    assert "66.67" in client.get(reverse("submissions:detail", args=[first.pk])).text


def _resubmit(client, phase, team, prediction, method):
    log_in(client, team.created_by)
    url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
    payload = {"method_name": method, "file_test": upload(prediction, f"{method}.json")}
    assert client.post(url, payload).status_code == 302
    submission = Submission.objects.get(method_name=method)
    assert tasks.score_submission(submission.pk) == "scored"
    return submission


def test_create_challenge_reads_the_schema_and_training_values_of_a_condition(tmp_path):
    from leaderboard.challenges.config import create_challenge, load_config

    (tmp_path / "gold.json").write_text(json.dumps(MWZ_GOLD))
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "train.json").write_text(json.dumps(["north"]))
    (tmp_path / "c.yaml").write_text(
        "challenge: {slug: mwz, title: MWZ, task: multiwoz22}\n"
        "phases:\n"
        "  - {name: Test, opens_at: 2026-01-01T00:00:00Z, closes_at: 2027-01-01T00:00:00Z,\n"
        "     conditions: [{key: test, reference: gold.json, schema: schema.json,\n"
        "                   training_values: train.json}]}\n"
    )
    challenge = create_challenge(load_config(tmp_path / "c.yaml"), tmp_path)
    reference = challenge.phases.get().conditions.get().active_reference()
    assert {f.name: f.original_name for f in reference.files.all()} == {
        "schema": "schema.json",
        "training_values": "train.json",
    }
    assert reference.summary["dialogues"] == 2 and reference.summary["turns"] == 3


def test_the_public_private_split_works_for_another_tasks_metrics(client, enqueued):
    from leaderboard.challenges.split import part_of

    challenge = ChallengeFactory(task="dvd", scorer_options=OPTIONS)
    phase = PhaseFactory(challenge=challenge, split_fraction=0.5, split_seed=1)
    condition = ConditionFactory(phase=phase, key="test", label="Test set")
    add_reference(condition, json.dumps(DVD_GOLD).encode(), "gold.json")
    parts = {dialogue: part_of(phase, dialogue) for dialogue in DVD_GOLD}
    # The split is a fixed hash of (seed, dialogue id): seed 1 puts one dialogue in each part.
    assert sorted(parts.values()) == ["private", "public"]
    submit_through_the_page(client, phase, DVD_PARTIAL, "partial")
    result = Result.objects.get()
    # v1: 1 of 2 turns jointly right (50); v2: its one turn right (100)
    expected = {parts["v1"]: 50.0, parts["v2"]: 100.0}
    assert result.public_primary == pytest.approx(expected["public"])
    assert result.private_primary == pytest.approx(expected["private"])
    assert result.part_metrics["public"]["metrics"]["joint"] == pytest.approx(expected["public"])
    (board,) = leaderboard(phase, "public").conditions
    assert board.rows[0].cells[0][0] == pytest.approx(expected["public"])


def test_my_submissions_status_json_and_archive_show_another_tasks_primary_metric(client, enqueued):
    from leaderboard.analyses.exports import archive

    phase = make_phase("dvd", json.dumps(DVD_GOLD).encode())
    submission = submit_through_the_page(client, phase, DVD_PARTIAL, "partial")
    page = client.get(reverse("submissions:mine", args=[phase.challenge.slug, phase.slug])).text
    # the leaderboard's first two columns: Joint Acc, then Joint Acc IoU@0.5
    assert "Joint Acc / Joint Acc IoU@0.5 per condition" in page
    assert 'data-metrics="joint joint_iou50"' in page
    assert "Test set: 66.67 / " in page
    status = client.get(reverse("submissions:status", args=[submission.pk])).json()
    assert status["results"]["test"]["metrics"]["joint"]["value"] == pytest.approx(200 / 3)
    assert status["part"] == "all"
    (row,) = archive(phase)["results"]
    assert row["metrics"]["joint"] == pytest.approx(200 / 3)


def test_a_hidden_phase_shows_a_team_its_own_public_part_of_another_tasks_metric(client, enqueued):
    from leaderboard.challenges.models import Phase
    from leaderboard.challenges.split import part_of

    challenge = ChallengeFactory(task="dvd", scorer_options=OPTIONS)
    phase = PhaseFactory(
        challenge=challenge,
        split_fraction=0.5,
        split_seed=1,
        results_visibility=Phase.Visibility.HIDDEN,
        show_own_public_score=True,
    )
    condition = ConditionFactory(phase=phase, key="test", label="Test set")
    add_reference(condition, json.dumps(DVD_GOLD).encode(), "gold.json")
    submission = submit_through_the_page(client, phase, DVD_PARTIAL, "partial")
    # v1: 1 of 2 turns right (50.00); v2: 1 of 1 (100.00); see the split test above
    public = "50.00" if part_of(phase, "v1") == "public" else "100.00"
    page = client.get(reverse("submissions:detail", args=[submission.pk])).text
    assert "Public-part scores" in page and "Joint Acc [95% CI]" in page
    assert public in page.split('id="public-results"')[1].split("</table>")[0]
    status = client.get(reverse("submissions:status", args=[submission.pk])).json()
    assert status["part"] == "public"
    assert f"{status['results']['test']['metrics']['joint']['value']:.2f}" == public
    mine = client.get(reverse("submissions:mine", args=[phase.challenge.slug, phase.slug])).text
    assert f"Test set: {public} / " in mine


def test_the_leaderboard_csv_lists_another_tasks_metrics(client, enqueued):
    phase = make_phase("dvd", json.dumps(DVD_GOLD).encode())
    submit_through_the_page(client, phase, DVD_PARTIAL, "partial")
    client.logout()
    url = reverse("rankings:export-csv", args=[phase.challenge.slug, phase.slug])
    lines = client.get(url).content.decode().splitlines()
    header = lines[0].split(",")
    assert header[-2:] == ["signature", "source"]
    # every metric of the board with its interval, Joint Acc first
    assert header[1] == "shows"  # what the board is (the public part, a snapshot ...)
    assert header[9:12] == ["joint", "joint_low", "joint_high"]
    assert "state_f1" in header and "ser" not in header
    # the live board of a phase without a split: the whole reference
    first = ("board,", 'public,"live board, whole reference",test,')
    (row,) = csv.DictReader(line for line in lines if line.startswith(first))
    assert row["joint"] == "66.6667"
    assert float(row["joint_low"]) <= 66.6667 <= float(row["joint_high"])
