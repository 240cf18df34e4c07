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
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from leaderboard.submissions import services
from leaderboard.submissions.models import Result, Submission
from scoring.synth import make_gold, make_prediction
from tests.conftest import ROOT
from tests.leaderboard.factories import approved_team, phase_with_references, uploads

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GOLD = make_gold(20, seed=5)
DEADLINE = 60.0


def _database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def start_worker(
    postgres, redis_url, isolation, tmp_path
) -> Iterator[Callable[..., subprocess.Popen]]:
    processes: list[subprocess.Popen] = []

    def start(**extra_env: str) -> subprocess.Popen:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
            "DATABASE_URL": _database_url(),
            "REDIS_URL": redis_url,
            "TRACKBOARD_QUEUE": isolation["tag"],
            "TRACKBOARD_CACHE_PREFIX": isolation["tag"],
            "TRACKBOARD_PRIVATE_ROOT": str(isolation["private"]),
            "TRACKBOARD_VAR_DIR": str(tmp_path / "var"),
            **extra_env,
        }
        env.pop("DATABASE_TEST_NAME", None)
        log = open(tmp_path / f"worker-{len(processes)}.log", "wb")  # noqa: SIM115
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "leaderboard",
                "worker",
                "--pool=solo",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=INFO",
                f"--hostname={isolation['tag']}-{len(processes)}@%h",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        processes.append(process)
        return process

    yield start
    for process in processes:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_for(predicate: Callable[[], bool], what: str, logs: Path) -> None:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    output = "\n".join(p.read_text(errors="replace")[-3000:] for p in sorted(logs.glob("*.log")))
    pytest.fail(f"timed out waiting for {what}; worker output:\n{output}")


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
    _wait_for(lambda: _status(submission.pk) == "scored", "the submission to be scored", tmp_path)
    assert Result.objects.filter(submission=submission).count() == 3


def test_a_worker_killed_while_scoring_leaves_the_submission_to_be_scored_exactly_once(
    start_worker, tmp_path
):
    slow = start_worker(TRACKBOARD_TEST_SCORE_DELAY="600")
    submission = _submit()
    _wait_for(lambda: _status(submission.pk) == "scoring", "the worker to claim it", tmp_path)
    os.kill(slow.pid, signal.SIGKILL)
    slow.wait()
    assert _status(submission.pk) == "scoring"
    assert not Result.objects.filter(submission=submission).exists()

    # The beat-driven reaper, run as it would be once the lease has expired.
    after_lease = timezone.now() + dt.timedelta(seconds=settings.SCORING_LEASE_SECONDS + 1)
    assert services.reap_expired_leases(now=after_lease) == [submission.pk]
    start_worker()
    _wait_for(lambda: _status(submission.pk) == "scored", "the re-queued scoring", tmp_path)

    submission.refresh_from_db()
    assert submission.attempts == 2
    results = Result.objects.filter(submission=submission)
    assert results.count() == 3
    assert results.values("condition").distinct().count() == 3
