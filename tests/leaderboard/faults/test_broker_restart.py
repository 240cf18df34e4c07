"""Redis stopped and started again while runs are queued, on a redis-server of the test's own
(another loopback port, no persistence: the restart loses every queued message)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
import redis

from leaderboard.celery import app
from leaderboard.storage import private_storage
from leaderboard.submissions import services
from leaderboard.submissions.models import Result, Submission
from scoring.synth import make_gold, make_prediction
from tests.conftest import require
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.faults.conftest import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GOLD = make_gold(3, seed=13)
KEYS = ("tts-verbatim",)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class OwnRedis:
    """A redis-server on a loopback port of its own, stopped and started by the test."""

    def __init__(self, tmp_path) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.dir = tmp_path
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.RedisError:
                time.sleep(0.05)
        pytest.fail(f"redis-server on port {self.port} did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()  # no SHUTDOWN SAVE: the queued messages are lost
            self.process.wait()


@pytest.fixture
def own_redis(tmp_path) -> Iterator[OwnRedis]:
    require("redis-server", shutil.which("redis-server") is not None, "apt install redis-server")
    server = OwnRedis(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def publish_to(monkeypatch):
    """Point this process's Celery producer at another broker for the test."""

    def switch(url: str) -> None:
        monkeypatch.setattr(app.conf, "broker_url", url)
        # Drop the cached connection and producer pools so the next publish uses ``url``.
        monkeypatch.setattr(app, "_pool", None)
        monkeypatch.setattr(app.amqp, "_producer_pool", None)

    yield switch
    if app._pool is not None:
        app._pool.force_close_all()


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
