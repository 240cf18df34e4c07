"""Worker liveness: a worker's heartbeat makes /readyz ready; with none for a minute /readyz
answers 503 naming ``worker`` while /healthz (liveness) stays 200. A real worker beats from the
moment it is ready, ``--without-heartbeat`` or not."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.utils import timezone

from leaderboard.operations import heartbeat
from leaderboard.operations.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db


def test_readyz_needs_a_live_worker(client, monkeypatch):
    monkeypatch.setattr("leaderboard.operations.health.CHECKS", {})
    heartbeat.scheduler_beat()  # the scheduler runs (its own test is below)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "ready": False, "failed": ["worker"],
                               "workers": 0}  # fmt: skip
    assert client.get("/healthz").status_code == 200

    heartbeat.beat("celery@one", now=timezone.now() - dt.timedelta(seconds=61))
    assert client.get("/readyz").status_code == 503  # older than a minute: stopped

    heartbeat.beat("celery@one")
    heartbeat.beat("celery@two")
    assert client.get("/readyz").json() == {"status": "ok", "ready": True, "workers": 2}


def test_the_heartbeat_loop_beats_until_it_is_stopped(monkeypatch):
    beats: list[str] = []
    stop = threading.Event()

    def fake_beat(hostname: str) -> None:
        beats.append(hostname)
        if len(beats) == 3:
            stop.set()

    monkeypatch.setattr(heartbeat, "INTERVAL", 0.01)
    monkeypatch.setattr(heartbeat, "record", fake_beat)
    monkeypatch.setattr(heartbeat, "connection", type("C", (), {"close": lambda self: None})())
    heartbeat.run("celery@host-a", stop)  # returns once stopped
    assert beats == ["celery@host-a"] * 3


def test_a_database_error_in_a_beat_is_logged_not_raised(monkeypatch, caplog):
    def broken(hostname: str, now=None) -> None:
        raise RuntimeError("database gone")

    monkeypatch.setattr(heartbeat, "beat", broken)
    heartbeat.record("celery@host-a")
    assert "could not record the worker heartbeat" in caplog.text
    assert not WorkerHeartbeat.objects.exists()


def test_readyz_and_the_log_say_when_the_scheduler_has_stopped(client, settings, caplog):
    settings.REAPER_INTERVAL = 15.0  # stale after four intervals: one minute
    heartbeat.beat("celery@one")
    response = client.get("/readyz")  # beat never ran
    assert response.status_code == 503
    assert response.json() == {"status": "error", "ready": False, "failed": ["scheduler"],
                               "workers": 1, "scheduler_silent_seconds": None}  # fmt: skip
    heartbeat.scheduler_beat(now=timezone.now() - dt.timedelta(seconds=59))
    assert client.get("/readyz").json() == {"status": "ok", "ready": True, "workers": 1}
    heartbeat.scheduler_beat(now=timezone.now() - dt.timedelta(minutes=7, seconds=5))
    response = client.get("/readyz")
    assert response.json()["failed"] == ["scheduler"]
    assert 425 <= response.json()["scheduler_silent_seconds"] <= 430
    caplog.clear()
    heartbeat.warn_of_a_silent_scheduler()  # what a worker's heartbeat logs once a minute
    assert "the scheduler has not run for 7 minutes" in caplog.text


def test_beats_periodic_task_records_the_scheduler(settings):
    from leaderboard.celery import app
    from leaderboard.operations.models import SchedulerHeartbeat
    from leaderboard.operations.tasks import scheduler_heartbeat

    sent = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert scheduler_heartbeat.name in sent
    before = timezone.now()
    scheduler_heartbeat()
    scheduler_heartbeat()
    (row,) = SchedulerHeartbeat.objects.all()
    assert row.seen_at >= before
