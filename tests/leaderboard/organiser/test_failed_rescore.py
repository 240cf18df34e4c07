"""What is ranked is what counts: a scored run whose re-score fails (its stored file no longer
reads as a prediction) leaves the board and the API's board, its page and the API show it
failed without scores, and it counts against no quota; a re-score that succeeds brings it
back. The rule is in the organisers' guide ("When a re-score fails").

The world is ``construction``'s (numbers by hand): public board A 100 (A1, A's only run),
B 75 (B2), C 25 (C1)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.storage import private_storage
from leaderboard.submissions import services
from leaderboard.submissions.models import Result
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.organiser import construction as c
from tests.leaderboard.organiser.conftest import KEY
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db


def _rows(world):
    (board,) = leaderboard(world.phase).conditions
    return [(row.method_name, round(row.cells[0][0], 2)) for row in board.rows]


def _stored(run, data: bytes) -> None:
    with private_storage().open(run.files.get().file.name, "wb") as handle:
        handle.write(data)


def test_a_failed_rescore_takes_the_run_off_every_board_and_the_quota(world, client):
    Phase.objects.filter(pk=world.phase.pk).update(results_visibility=Phase.Visibility.PUBLIC)
    Phase.changed(world.phase.pk)
    world.phase = built(world.phase)
    run, team = world.runs["A1"], world.teams["A"]
    assert _rows(world) == [("run A1", 100.0), ("run B2", 75.0), ("run C1", 25.0)]
    assert services.quota_usage(team, world.phase)[1] == 1
    _stored(run, b"{ this is not a prediction")
    assert services.rescore(run, enqueue=False)
    assert services.run_scoring(run.pk) == "failed"
    run.refresh_from_db()
    assert run.status == "failed" and run.error
    # the board, as the board's worker builds it after the change
    assert _rows(world) == [("run B2", 75.0), ("run C1", 25.0)]
    api = client.get(reverse("api:leaderboard", args=[world.phase.pk]), {"condition": KEY})
    assert [row["method_name"] for row in api.json()["results"]] == ["run B2", "run C1"]
    # the quota: a failed run counts against none
    assert services.quota_usage(team, world.phase)[1] == 0
    # the run's page and the API: failed, no scores; the earlier Result is kept, not current
    member = team.created_by
    data = token_client(member).get(reverse("api:submission", args=[run.pk])).json()
    assert data["status"] == "failed" and data["results"] == {}
    log_in(client, member)
    page = client.get(reverse("submissions:detail", args=[run.pk])).text
    assert "its last scoring failed, so it is on no leaderboard" in page
    assert Result.objects.filter(submission=run, current=False).count() == 1
    assert not Result.objects.filter(submission=run, current=True).exists()
    # an organiser's re-score that succeeds brings it back, at its own figures
    _stored(run, json.dumps(c.prediction(*c.RUNS["A1"])).encode())
    assert services.rescore(run, enqueue=False, include_failed=True)
    assert services.run_scoring(run.pk) == "scored"
    assert _rows(world) == [("run A1", 100.0), ("run B2", 75.0), ("run C1", 25.0)]
