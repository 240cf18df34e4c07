"""Worker liveness: a worker's heartbeat makes /readyz ready; with none for a minute /readyz
answers 503 naming ``worker`` while /healthz (liveness) stays 200."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest
from django.utils import timezone

from leaderboard.operations import heartbeat
from leaderboard.operations.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db


def test_readyz_needs_a_live_worker(client, monkeypatch):
    monkeypatch.setattr("leaderboard.operations.health.CHECKS", {})
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


def test_celerys_heartbeat_signal_writes_the_workers_row_at_most_every_interval(monkeypatch):
    monkeypatch.setattr(heartbeat, "_last_beat", 0.0)
    # In a worker the handler first drops a broken connection; here that would close the
    # test's transaction.
    monkeypatch.setattr(heartbeat, "close_old_connections", lambda: None)
    sender = SimpleNamespace(hostname="celery@host-a")
    heartbeat._ready(sender=sender)
    first = WorkerHeartbeat.objects.get(hostname="celery@host-a").seen_at
    heartbeat._heartbeat(sender=sender)  # within INTERVAL: not written again
    assert WorkerHeartbeat.objects.get(hostname="celery@host-a").seen_at == first
    monkeypatch.setattr(heartbeat, "_last_beat", 0.0)  # INTERVAL has passed
    heartbeat._heartbeat(sender=sender)
    assert WorkerHeartbeat.objects.get(hostname="celery@host-a").seen_at > first
    assert [w.hostname for w in heartbeat.alive_workers()] == ["celery@host-a"]
