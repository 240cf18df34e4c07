"""Redis stopped and started again while runs are queued, on a redis-server of the test's own
(another loopback port, no persistence: the restart loses every queued message)."""

from __future__ import annotations

import json

import pytest

from leaderboard.storage import private_storage
from leaderboard.submissions import services
from leaderboard.submissions.models import Result, Submission
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.faults.conftest import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GOLD = make_gold(3, seed=13)
KEYS = ("tts-verbatim",)


def test_runs_queued_across_a_redis_restart_are_all_scored_once(
    start_worker, own_redis, publish_to, tmp_path, settings
):
    settings.SCORING_RESEND_AFTER_SECONDS = 1
    publish_to(own_redis.url)
    worker_env = {
        "broker": own_redis.url,
        "TRACKBOARD_TEST_SCORE_DELAY": "0.5",
        "TRACKBOARD_SCORING_LEASE_SECONDS": "5",
    }
    workers = [start_worker(**worker_env)]
    phase = phase_with_references(json.dumps(GOLD).encode(), keys=KEYS)
    team = approved_team(phase)
    prediction = make_prediction(GOLD, 0.2, seed=4)

    def submit(name: str) -> Submission:
        return services.submit(
            team=team,
            phase=phase,
            user=team.created_by,
            files=uploads(prediction, keys=KEYS),
            method_name=name,
        )

    before = [submit(f"before {i}") for i in range(4)]
    wait_for(
        lambda: Submission.objects.filter(status="scoring").exists(),
        "the worker to claim a run",
        tmp_path,
    )
    own_redis.stop()
    # The broker is down: the upload is still accepted (stored, charged, queued); its message
    # is sent again by the reaper.
    during = [submit(f"during {i}") for i in range(2)]
    for submission in during:
        assert submission.status == "queued"
        for item in submission.files.all():
            assert private_storage().exists(item.file.name)
    own_redis.start()

    everyone = before + during
    ids = [s.pk for s in everyone]

    def all_done() -> bool:
        # As a supervisor (systemd, Docker's restart policy) would: Celery's consumer can exit
        # while closing the dead connection (kombu's restore_unacked on a released channel).
        if workers[-1].poll() is not None:
            workers.append(start_worker(**worker_env))
        services.reap_expired_leases()  # as beat would, on a short interval
        return not Submission.objects.filter(pk__in=ids, status__in=["queued", "scoring"]).exists()

    wait_for(all_done, "every run to be scored after the restart", tmp_path, deadline=90)
    for submission in everyone:
        submission.refresh_from_db()
        assert submission.status == "scored", (submission.method_name, submission.error)
        assert Result.objects.filter(submission=submission).count() == len(KEYS)
