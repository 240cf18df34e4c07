"""SIGKILL of the process that is scoring, 20 times, with a real prefork worker on Redis.

The pool process is killed while it holds the claim (the test score delay keeps it there for a
moment); Celery requeues the message (``reject_on_worker_lost``), the redelivery finds the row
claimed under a live lease and skips it, and the reaper, run as beat would once the lease has
expired, gives the row back (a killed run costs its attempt). Outcome: scored exactly once,
or ``failed`` with a message when every attempt was killed; nothing is left ``queued`` or
``scoring``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import time

import pytest
from django.conf import settings
from django.utils import timezone

from leaderboard.submissions import services
from leaderboard.submissions.models import Result, Submission
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.faults.conftest import (
    pool_processes_holding_a_database_connection,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GOLD = make_gold(3, seed=11)
KILLS = 20
MAX_ATTEMPTS = 3


def _the_scoring_process(master: int) -> list[int]:
    """The pool process holding the claim. Another pool process may hold a connection for a
    moment (a redelivered message it is skipping); the claimant keeps its connection for the
    whole scoring delay, so a few looks a few milliseconds apart single it out."""
    busy: list[int] = []
    for _ in range(30):
        busy = pool_processes_holding_a_database_connection(master)
        if len(busy) == 1:
            break
        time.sleep(0.01)
    return busy


def _status(pk: int) -> str:
    return Submission.objects.values_list("status", flat=True).get(pk=pk)


def _reap_as_beat_would() -> None:
    # Past every lease: the killed run's lease has expired by then.
    later = timezone.now() + dt.timedelta(seconds=settings.SCORING_LEASE_SECONDS + 1)
    services.reap_expired_leases(now=later)


def test_twenty_kills_mid_scoring_leave_every_submission_scored_once_or_failed(
    start_worker, tmp_path, settings, isolation
):
    settings.SCORING_MAX_ATTEMPTS = MAX_ATTEMPTS
    # The board's rebuilds (sent after each upload and each scoring) go to a queue of their
    # own that no worker here takes: the one pool process holding a connection is the scorer.
    rebuilds = f"{isolation['tag']}-rebuilds"
    settings.CELERY_RESCORE_QUEUE = rebuilds
    master = start_worker(
        pool="prefork",
        # Spare pool processes take the next message at once: Celery replaces a killed one
        # on its pool-maintenance tick (up to 5 s later).
        concurrency=6,
        # Long enough that the claimant still holds its claim when it is found and killed
        # under a loaded machine (with 0.4 s it had once finished: another process was
        # killed, and the run was scored at its first attempt).
        TRACKBOARD_TEST_SCORE_DELAY="1",
        TRACKBOARD_SCORING_MAX_ATTEMPTS=str(MAX_ATTEMPTS),
        TRACKBOARD_RESCORE_QUEUE=rebuilds,
    )
    phase = phase_with_references(json.dumps(GOLD).encode(), keys=("tts-verbatim",))
    team = approved_team(phase)
    prediction = make_prediction(GOLD, 0.2, seed=3)

    # 17 submissions killed once each, then one killed on every one of its 3 attempts.
    plan = [1] * (KILLS - MAX_ATTEMPTS) + [MAX_ATTEMPTS]
    assert sum(plan) == KILLS
    submissions = []
    kills = 0
    for kills_for_this in plan:
        submission = services.submit(
            team=team,
            phase=phase,
            user=team.created_by,
            files=uploads(prediction, keys=("tts-verbatim",)),
            method_name=f"kill {len(submissions)}",
        )
        submissions.append(submission)
        for attempt in range(1, kills_for_this + 1):
            wait_for(
                lambda s=submission, a=attempt: Submission.objects.filter(
                    pk=s.pk, status="scoring", attempts=a
                ).exists(),
                f"attempt {attempt} of #{submission.pk} to be claimed",
                tmp_path,
            )
            busy = _the_scoring_process(master.pid)
            assert len(busy) == 1, f"expected one pool process scoring, found {busy}"
            os.kill(busy[0], signal.SIGKILL)
            kills += 1
            # The requeued message comes back and is skipped (the row is still claimed);
            # the reaper then gives the row back and sends it again.
            _reap_as_beat_would()
        wait_for(
            lambda s=submission: _status(s.pk) in {"scored", "failed"},
            f"#{submission.pk} to end",
            tmp_path,
        )
        assert master.poll() is None, "the worker's main process died"
    assert kills == KILLS

    for submission, kills_for_this in zip(submissions, plan, strict=True):
        submission.refresh_from_db()
        if kills_for_this < MAX_ATTEMPTS:
            assert submission.status == "scored", submission.error
            assert submission.attempts == kills_for_this + 1
            assert Result.objects.filter(submission=submission).count() == 1
            assert submission.charged
        else:
            assert submission.status == "failed"
            assert "did not complete after 3 attempt(s)" in submission.error
            assert not Result.objects.filter(submission=submission).exists()
            assert not submission.charged
    assert not Submission.objects.filter(status__in=["queued", "scoring"]).exists()
