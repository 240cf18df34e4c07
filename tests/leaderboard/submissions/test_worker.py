"""End to end with a real Celery worker process on Redis and a shared Postgres database.

The worker is started as a subprocess with settings from its environment, pointed at this
test's database, private directory and a queue of its own. Waiting loops have a generous
deadline so a broken worker fails the test instead of hanging it; nothing asserts speed.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal

import pytest
from django.conf import settings
from django.utils import timezone

from leaderboard.submissions import services
from leaderboard.submissions.models import Result, Submission
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.workers import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GOLD = make_gold(20, seed=5)


def _status(pk: int) -> str:
    return Submission.objects.values_list("status", flat=True).get(pk=pk)


def _submit() -> Submission:
    phase = phase_with_references(json.dumps(GOLD).encode())
    team = approved_team(phase)
    return services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files=uploads(make_prediction(GOLD, 0.1, seed=2)),
        method_name="end to end",
    )


def test_a_real_worker_scores_a_submission_made_through_the_service(start_worker, tmp_path):
    start_worker()
    submission = _submit()  # enqueued on commit, to the real broker
    wait_for(lambda: _status(submission.pk) == "scored", "the submission to be scored", tmp_path)
    assert Result.objects.filter(submission=submission).count() == 3


def test_a_worker_killed_while_scoring_leaves_the_submission_to_be_scored_exactly_once(
    start_worker, tmp_path
):
    slow = start_worker(TRACKBOARD_TEST_SCORE_DELAY="600")
    submission = _submit()
    wait_for(lambda: _status(submission.pk) == "scoring", "the worker to claim it", tmp_path)
    os.kill(slow.pid, signal.SIGKILL)
    slow.wait()
    assert _status(submission.pk) == "scoring"
    assert not Result.objects.filter(submission=submission).exists()

    # The beat-driven reaper, run as it would be once the lease has expired.
    after_lease = timezone.now() + dt.timedelta(seconds=settings.SCORING_LEASE_SECONDS + 1)
    assert services.reap_expired_leases(now=after_lease) == [submission.pk]
    start_worker()
    wait_for(lambda: _status(submission.pk) == "scored", "the re-queued scoring", tmp_path)

    submission.refresh_from_db()
    assert submission.attempts == 2
    results = Result.objects.filter(submission=submission)
    assert results.count() == 3
    assert results.values("condition").distinct().count() == 3


def test_a_real_worker_beats_and_makes_readyz_ready(start_worker, tmp_path, client):
    from leaderboard.operations.heartbeat import alive_workers, scheduler_beat
    from leaderboard.operations.models import WorkerHeartbeat

    assert client.get("/readyz").json()["failed"] == ["worker", "scheduler"]
    scheduler_beat()  # as beat's periodic task does (no beat runs here)
    assert client.get("/readyz").json()["failed"] == ["worker"]
    start_worker()  # started with --without-heartbeat: it beats all the same
    wait_for(lambda: len(alive_workers()) == 1, "the worker's heartbeat", tmp_path)
    first = WorkerHeartbeat.objects.get().seen_at
    assert client.get("/readyz").json() == {"status": "ok", "ready": True, "workers": 1}
    wait_for(lambda: WorkerHeartbeat.objects.get().seen_at > first, "a second heartbeat", tmp_path)
