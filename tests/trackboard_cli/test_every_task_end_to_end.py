"""Every task goes the same way, with a real worker on the real broker: two runs uploaded on
the submit page (the worse first), scored by the worker; the leaderboard page with the
better one; the API's submission detail with every metric of the task and its interval; the
private board's default selection (the best run, not the first); then ``trackboard submit
--wait`` and ``trackboard leaderboard`` from the command line.

The expected figures are worked by hand in ``tests/leaderboard/task_data.py`` and
``tests/leaderboard/web.py``."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.rankings.compute import compute
from leaderboard.rankings.finals import final_submission_ids
from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import approved_team, upload
from tests.leaderboard.task_data import (
    DVD_EMPTY,
    DVD_GOLD,
    DVD_PARTIAL,
    MWZ_EMPTY,
    MWZ_GOLD,
    MWZ_PARTIAL,
    SCHEMA,
    make_phase,
)
from tests.leaderboard.web import GOLD, GOLD_BYTES, PREDICTION, log_in
from tests.leaderboard.workers import wait_for
from tests.trackboard_cli.conftest import trackboard_command
from tests.trackboard_cli.test_cli_against_a_live_server import _token_from_profile_page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

DEADLINE = 90.0

#: task -> (gold, reference files, a worse run, a better run, {label: value} of the better)
CASES = {
    "dstc11": (
        GOLD_BYTES,
        None,
        {key: [{} for _ in turns] for key, turns in GOLD.items()},  # JGA 0, SER 100
        PREDICTION,  # 3 of 4 turns right, 1 substitution in 6 gold values
        {"JGA": "75.00", "SER": "16.67"},
    ),
    "multiwoz22": (
        json.dumps(MWZ_GOLD).encode(),
        {"schema": (json.dumps(SCHEMA).encode(), "schema.json")},
        MWZ_EMPTY,  # JGA 0
        MWZ_PARTIAL,  # 2 of 3 turns right; the area is right in every turn
        {"JGA": "66.67", "Cat. JGA": "100.00"},
    ),
    "dvd": (
        json.dumps(DVD_GOLD).encode(),
        None,
        DVD_EMPTY,  # Joint Acc 0
        DVD_PARTIAL,  # 2 of 3 turns jointly right, their segments exact
        {"Joint Acc": "66.67", "Joint Acc IoU@0.5": "66.67"},
    ),
}


def _scored(pks: list[int]) -> None:
    deadline = time.monotonic() + DEADLINE
    while Submission.objects.filter(pk__in=pks, status=Submission.Status.SCORED).count() < len(pks):
        if time.monotonic() > deadline:
            states = dict(Submission.objects.filter(pk__in=pks).values_list("pk", "status"))
            pytest.fail(f"the worker did not score {pks} in time: {states}")
        time.sleep(0.1)


@pytest.mark.parametrize("task", list(CASES))
def test_every_task_goes_the_same_way_from_upload_to_page_api_finals_and_command_line(
    task, live_server, start_worker, cli_env, tmp_path: Path
):
    gold, files, worse, better, shown = CASES[task]
    phase = make_phase(task, gold, files)
    start_worker()
    team = approved_team(phase)
    member = Client()
    log_in(member, team.created_by)
    submit_url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
    for method, prediction in (("First run", worse), ("Second run", better)):
        payload = {"method_name": method, "method_description": "", "url": ""}
        payload["file_test"] = upload(prediction, f"{method}.json")
        assert member.post(submit_url, payload).status_code == 302
    first, second = Submission.objects.filter(team=team).order_by("created_at")
    _scored([first.pk, second.pk])

    # The leaderboard page ranks the team by its better run, with the task's columns. The
    # worker builds the board after each upload and each scoring (the build task each change
    # asks for once committed); meanwhile a reader gets the last board built (the first run,
    # or none scored yet), or none yet.
    url = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])
    pages = []

    def shows_the_better_run() -> bool:
        pages.append(Client().get(url).text)
        return "Second run" in pages[-1]

    wait_for(
        shows_the_better_run,
        "the page to show the better run",
        tmp_path,
        deadline=DEADLINE,
    )
    page = pages[-1]
    assert "First run" not in page
    earlier = ("First run", "No scored submissions yet", "This leaderboard has not been built yet")
    assert all(any(text in seen for text in earlier) for seen in pages[:-1])
    for label, value in shown.items():
        assert f'{label} <span class="sub">[95% CI]' in page and value in page

    # The API gives every metric of the task with its interval.
    detail = member.get(f"/api/v1/submissions/{second.pk}/").json()
    metrics = detail["results"]["test"]["metrics"]
    task_metrics = phase.challenge.scoring_task().metrics
    for spec in task_metrics:
        if spec.optional or spec.name not in metrics:
            continue
        if spec.interval:
            low, high = metrics[spec.name]["ci"]
            assert low <= metrics[spec.name]["value"] <= high, spec.name
    labels = {m.label: m.name for m in task_metrics}
    for label, value in shown.items():
        assert f"{metrics[labels[label]]['value']:.2f}" == value

    # A team that selected nothing enters the private board with its best run.
    assert final_submission_ids(phase) == {second.pk}
    (row,) = compute(phase, "private").conditions[0].rows
    assert row.submission_id == second.pk

    # The command line: a third run submitted and waited for, then the board.
    environment = {**cli_env}
    key = _token_from_profile_page(team.created_by)
    subprocess.run(
        [*trackboard_command(), "login", "--url", live_server.url, "--token", key],
        env=environment, check=True, capture_output=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    run = tmp_path / "third.json"
    run.write_text(json.dumps(better))
    target = f"{phase.challenge.slug}/{phase.slug}"
    done = subprocess.run(
        [*trackboard_command(), "submit", target, "--file", f"test={run}", "--method",
         "Third run", "--wait", "--interval", "0.5", "--timeout", str(DEADLINE)],
        env=environment, capture_output=True, text=True, timeout=DEADLINE + 30,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert ": scored" in done.stdout
    for label, value in shown.items():
        assert label in done.stdout and value in done.stdout
    board = subprocess.run(
        [*trackboard_command(), "leaderboard", target, "--condition", "test"],
        env=environment, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert board.returncode == 0, board.stderr
    assert team.name in board.stdout
    for label, value in shown.items():
        assert label in board.stdout and value in board.stdout
