"""How long the site takes to recover from each fault, with a real worker and a real beat on
Postgres and Redis: the pool process scoring killed, the whole worker killed and started
again, beat stopped, Redis restarted with its queue lost, every database connection
terminated again and again while runs are scored.

Each test ends with every accepted upload scored once and none failed, and records its
recovery time in its figures (``benchmarks/faults.py`` prints them). The leases and intervals
are shortened for the suite; ``TRACKBOARD_FAULT_TIMES=production`` runs the same tests with
the production defaults (a minute's lease, the periodic tasks every 15 s, the 30 s and 50 s
outages of the issue), as the benchmark does. The only bounds are generous deadlines.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import psycopg
import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from leaderboard.operations.models import SchedulerHeartbeat
from leaderboard.submissions import services
from leaderboard.submissions.models import Result, Submission
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.factories import (
    approved_team,
    phase_with_references,
    uploads,
    with_second_factor,
)
from tests.leaderboard.faults.conftest import (
    database_url,
    pool_processes_holding_a_database_connection,
    wait_for,
)
from tests.leaderboard.operations.processes import children_of
from tests.leaderboard.web import tight

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PRODUCTION = os.environ.get("TRACKBOARD_FAULT_TIMES") == "production"
LEASE = 60 if PRODUCTION else 6
INTERVAL = 15 if PRODUCTION else 1
RESEND = 30 if PRODUCTION else 2
STORM = 50 if PRODUCTION else 8
#: Generous: a run not scored by then is lost, not slow.
DEADLINE = 400 if PRODUCTION else 120
TIMES = {
    "TRACKBOARD_SCORING_LEASE_SECONDS": str(LEASE),
    "TRACKBOARD_REAPER_INTERVAL": str(INTERVAL),
    "TRACKBOARD_SCORING_RESEND_AFTER_SECONDS": str(RESEND),
}
GOLD = make_gold(3, seed=29)
KEYS = ("tts-verbatim",)


@pytest.fixture
def world(settings, isolation):
    settings.REAPER_INTERVAL = float(INTERVAL)
    settings.SCORING_LEASE_SECONDS = LEASE
    # The boards' builds go to a queue no worker here takes: the pool process holding a
    # database connection is the one scoring, and the figures are the scoring's alone.
    settings.CELERY_BOARD_QUEUE = f"{isolation['tag']}-boards"
    phase = phase_with_references(json.dumps(GOLD).encode(), keys=KEYS)
    return (
        phase,
        approved_team(phase),
        {**TIMES, "TRACKBOARD_BOARD_QUEUE": f"{isolation['tag']}-boards"},
    )


def _submit(phase, team, name: str, seed: int = 1) -> Submission:
    return services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files=uploads(make_prediction(GOLD, 0.2, seed=seed), keys=KEYS),
        method_name=name,
    )


def _statuses(pks: list[int]) -> dict[int, str]:
    connection.close()  # a connection a fault may have broken: ask on a new one
    return dict(Submission.objects.filter(pk__in=pks).values_list("pk", "status"))


def _all_scored_once(pks: list[int]) -> None:
    statuses = _statuses(pks)
    assert set(statuses.values()) == {"scored"}, statuses
    for pk in pks:
        assert Result.objects.filter(submission_id=pk).count() == len(KEYS)


def test_the_run_of_a_killed_pool_process_is_scored_again_within_a_lease(
    start_worker, start_beat, world, tmp_path, tally
):
    phase, team, env = world
    master = start_worker(pool="prefork", concurrency=2, TRACKBOARD_TEST_SCORE_DELAY="2", **env)
    start_beat(**env)
    uploaded = time.monotonic()
    submission = _submit(phase, team, "killed")
    wait_for(
        lambda: Submission.objects.filter(pk=submission.pk, status="scoring").exists(),
        "the run to be claimed",
        tmp_path,
    )
    busy: list[int] = []
    for _ in range(50):  # beat's short tasks may hold a connection for a moment too
        busy = pool_processes_holding_a_database_connection(master.pid)
        if len(busy) == 1:
            break
        time.sleep(0.01)
    assert len(busy) == 1, busy
    os.kill(busy[0], signal.SIGKILL)
    killed = time.monotonic()
    wait_for(
        lambda: _statuses([submission.pk]) == {submission.pk: "scored"},
        "the killed run to be scored again",
        tmp_path,
        deadline=DEADLINE,
    )
    scored = time.monotonic()
    _all_scored_once([submission.pk])
    submission.refresh_from_db()
    assert submission.attempts == 2  # the killed run's attempt counts
    assert master.poll() is None
    tally.figures["upload_to_scored_s"] = scored - uploaded
    tally.figures["kill_to_scored_s"] = scored - killed


def test_the_run_of_a_killed_worker_is_scored_once_a_worker_starts_again(
    start_worker, start_beat, world, tmp_path, tally
):
    phase, team, env = world
    worker = start_worker(TRACKBOARD_TEST_SCORE_DELAY="2", **env)
    start_beat(**env)
    submission = _submit(phase, team, "worker killed")
    wait_for(
        lambda: Submission.objects.filter(pk=submission.pk, status="scoring").exists(),
        "the run to be claimed",
        tmp_path,
    )
    for pid in [worker.pid, *children_of(worker.pid)]:
        os.kill(pid, signal.SIGKILL)
    worker.wait()
    start_worker(**env)
    restarted = time.monotonic()
    wait_for(
        lambda: _statuses([submission.pk]) == {submission.pk: "scored"},
        "the run to be scored by the new worker",
        tmp_path,
        deadline=DEADLINE,
    )
    tally.figures["restart_to_scored_s"] = time.monotonic() - restarted
    _all_scored_once([submission.pk])


def test_readyz_and_the_dashboard_say_when_beat_stops_and_when_it_is_back(
    start_worker, start_beat, world, tmp_path, tally
):
    phase, team, env = world
    start_worker(**env)
    beat = start_beat(**env)
    organiser = team.created_by
    phase.challenge.organisers.add(with_second_factor(organiser))
    web = Client()
    web.force_login(organiser)
    dashboard = reverse("challenges:organise", args=[phase.challenge.slug])
    wait_for(lambda: web.get("/readyz").status_code == 200, "/readyz to be ready", tmp_path)
    assert '<dd id="scheduler">running</dd>' in tight(web.get(dashboard).text)
    beat.terminate()
    beat.wait(timeout=30)
    stopped = time.monotonic()
    wait_for(
        lambda: "scheduler" in web.get("/readyz").json().get("failed", []),
        "/readyz to name the scheduler",
        tmp_path,
        deadline=DEADLINE,
    )
    tally.figures["stop_to_readyz_503_s"] = time.monotonic() - stopped
    assert "The scheduler has not run for" in web.get(dashboard).text
    # An upload meanwhile is scored all the same (its message was sent at upload).
    submission = _submit(phase, team, "without beat")
    wait_for(
        lambda: _statuses([submission.pk]) == {submission.pk: "scored"},
        "the upload to be scored",
        tmp_path,
    )
    start_beat(**env)
    back = time.monotonic()
    wait_for(lambda: web.get("/readyz").status_code == 200, "/readyz to be ready again", tmp_path)
    tally.figures["restart_to_readyz_200_s"] = time.monotonic() - back
    assert '<dd id="scheduler">running</dd>' in tight(web.get(dashboard).text)
    assert SchedulerHeartbeat.objects.count() == 1


def test_runs_whose_messages_were_lost_with_redis_are_scored_within_a_resend(
    start_worker, start_beat, own_redis, publish_to, world, tmp_path, tally
):
    phase, team, env = world
    publish_to(own_redis.url)
    start_worker(broker=own_redis.url, TRACKBOARD_TEST_SCORE_DELAY="1", **env)
    start_beat(broker=own_redis.url, **env)
    pks = [_submit(phase, team, f"queued {n}", seed=n).pk for n in range(4)]
    wait_for(
        lambda: Submission.objects.filter(status="scoring").exists(),
        "the worker to claim a run",
        tmp_path,
    )
    own_redis.stop()  # no persistence: every queued message is lost
    own_redis.start()
    restarted = time.monotonic()
    wait_for(
        lambda: set(_statuses(pks).values()) == {"scored"},
        "every run to be scored after the restart",
        tmp_path,
        deadline=DEADLINE,
    )
    tally.figures["restart_to_all_scored_s"] = time.monotonic() - restarted
    _all_scored_once(pks)


def _terminate_backends() -> None:
    with psycopg.connect(database_url(), autocommit=True) as own:
        own.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND backend_type = 'client backend'"
        )


def test_runs_scored_while_every_connection_is_terminated_every_few_tenths_fail_none(
    start_worker, start_beat, world, tmp_path, tally
):
    phase, team, env = world
    start_worker(TRACKBOARD_TEST_SCORE_DELAY="0.3", **env)
    start_beat(**env)
    pks = [_submit(phase, team, f"storm {n}", seed=n).pk for n in range(4)]
    connection.close()
    stop = threading.Event()
    strikes = []

    def storm() -> None:
        end = time.monotonic() + STORM
        while time.monotonic() < end and not stop.is_set():
            try:
                _terminate_backends()
                strikes.append(1)
            except psycopg.Error:
                pass
            time.sleep(0.3)

    striker = threading.Thread(target=storm)
    striker.start()
    striker.join()
    calm = time.monotonic()
    assert len(strikes) > STORM  # about three a second
    wait_for(
        lambda: set(_statuses(pks).values()) <= {"scored", "failed"},
        "every run to end after the storm",
        tmp_path,
        deadline=DEADLINE,
    )
    tally.figures["calm_to_all_scored_s"] = time.monotonic() - calm
    statuses = _statuses(pks)
    tally.figures["failed"] = sum(s == "failed" for s in statuses.values())
    _all_scored_once(pks)
