"""/livez answers whatever is down; /healthz names the failing dependency with a 503; /readyz
waits for migrations (and a worker); /readyz/web for the database and migrations only; JSON
logs; the settings of the operations block fail loudly on bad values."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import pytest

from leaderboard.operations import health
from leaderboard.operations.logs import JsonFormatter
from tests.conftest import ROOT

pytestmark = pytest.mark.django_db


def test_livez_answers_200_without_a_query_while_every_dependency_fails(
    client, monkeypatch, django_assert_num_queries
):
    def broken() -> None:
        raise OSError("down")

    for name in ("database", "broker", "storage"):
        monkeypatch.setitem(health.CHECKS, name, broken)
    assert client.get("/healthz").status_code == 503
    with django_assert_num_queries(0):
        response = client.get("/livez")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_healthz_is_ok_when_database_broker_and_storage_answer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": True, "broker": True, "storage": True}


@pytest.mark.parametrize("name", ["database", "broker", "storage"])
def test_healthz_answers_503_naming_the_failed_check(client, monkeypatch, name, caplog):
    def broken() -> None:
        raise OSError("secret connection detail")

    monkeypatch.setitem(health.CHECKS, name, broken)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error" and body["failed"] == [name] and body[name] is False
    assert "secret" not in response.content.decode()  # the reason goes to the log only
    assert "secret connection detail" in caplog.text


def test_healthz_fails_on_a_private_storage_that_is_gone(client, settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "private": {
            "BACKEND": "leaderboard.storage.PrivateStorage",
            "OPTIONS": {"location": str(tmp_path / "unmounted")},
        },
    }
    response = client.get("/healthz")
    assert response.status_code == 503 and response.json()["failed"] == ["storage"]


def test_readyz_is_ok_once_migrated_and_503_with_pending_migrations(client, monkeypatch):
    from leaderboard.operations.heartbeat import beat, scheduler_beat

    beat("celery@test")  # a live worker (tests/leaderboard/operations/test_worker_heartbeat.py)
    scheduler_beat()  # and a live scheduler
    assert client.get("/readyz").json() == {"status": "ok", "ready": True, "workers": 1}
    monkeypatch.setattr(health, "pending_migrations", lambda: ["submissions.0099_future"])
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["pending"] == ["submissions.0099_future"]


def test_readyz_web_serves_with_workers_and_beat_down_while_readyz_names_them(client):
    """Workers stopped and beat being replaced: /readyz (alerting) says so, but the web pools
    stay ready, so readers keep their pages."""
    import datetime as dt

    from django.utils import timezone

    from leaderboard.operations.heartbeat import beat
    from leaderboard.operations.models import SchedulerHeartbeat, WorkerHeartbeat

    WorkerHeartbeat.objects.all().delete()
    SchedulerHeartbeat.objects.all().delete()
    beat("celery@stopped", now=timezone.now() - dt.timedelta(minutes=5))  # long silent
    alerting = client.get("/readyz")
    assert alerting.status_code == 503
    assert alerting.json()["failed"] == ["worker", "scheduler"]
    response = client.get("/readyz/web")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_web_never_asks_the_broker_or_storage(client, monkeypatch):
    def broken() -> None:
        raise OSError("down")

    monkeypatch.setattr(health, "check_broker", broken)
    monkeypatch.setattr(health, "check_storage", broken)
    for name in ("broker", "storage"):
        monkeypatch.setitem(health.CHECKS, name, broken)
    assert client.get("/healthz").json()["failed"] == ["broker", "storage"]
    assert client.get("/readyz/web").status_code == 200


def test_readyz_web_is_503_naming_the_database_when_it_does_not_answer(client, monkeypatch, caplog):
    """Every query fails as with the server gone; the reason (which names the server and the
    user) goes to the log, the body names only ``database``."""
    from django.db import DEFAULT_DB_ALIAS, OperationalError, connections

    detail = 'connection to server at "db.internal" (10.0.0.9), port 5432 failed: user "secret"'

    def unreachable(*args: object, **kwargs: object) -> None:
        raise OperationalError(detail)

    monkeypatch.setattr(type(connections[DEFAULT_DB_ALIAS]), "cursor", unreachable)
    with caplog.at_level(logging.ERROR, logger="leaderboard.operations.health"):
        response = client.get("/readyz/web")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "failed": ["database"]}
    text = response.content.decode()
    assert "secret" not in text and "10.0.0.9" not in text and "Traceback" not in text
    assert detail in caplog.text


def test_readyz_web_is_503_naming_migrations_while_one_is_pending(client, monkeypatch):
    monkeypatch.setattr(health, "pending_migrations", lambda: ["submissions.0099_future"])
    response = client.get("/readyz/web")
    assert response.status_code == 503
    assert response.json() == {
        "status": "error",
        "failed": ["migrations"],
        "pending": ["submissions.0099_future"],
    }


def test_readyz_web_answers_every_production_probe_as_readyz_does(client, settings):
    """The HTTPS redirect and the allowed hosts treat /readyz/web as /readyz: a probe that
    says it came through the HTTPS proxy is answered, one that does not is redirected, and a
    host not allowed is refused; nginx's cache never keeps either (no ``public``)."""
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.ALLOWED_HOSTS = ["trackboard.example.org", "127.0.0.1"]
    from leaderboard.operations.heartbeat import beat, scheduler_beat

    beat("celery@test")
    scheduler_beat()
    for path in ("/readyz", "/readyz/web"):
        proxied = client.get(path, HTTP_HOST="127.0.0.1:8000", HTTP_X_FORWARDED_PROTO="https")
        assert proxied.status_code == 200, path
        assert "public" not in proxied.get("Cache-Control", ""), path
        assert client.get(path, HTTP_HOST="127.0.0.1:8000").status_code == 301, path
        refused = client.get(path, HTTP_HOST="10.1.2.3:8000", HTTP_X_FORWARDED_PROTO="https")
        assert refused.status_code == 400, path


def test_the_json_formatter_writes_one_object_per_line_with_extras_and_exceptions():
    record = logging.LogRecord(
        "trackboard.x", logging.WARNING, __file__, 1, "hi %s", ("bob",), None
    )
    record.submission = 42
    entry = json.loads(JsonFormatter().format(record))
    assert entry["level"] == "WARNING" and entry["logger"] == "trackboard.x"
    assert entry["message"] == "hi bob" and entry["submission"] == 42
    assert entry["time"].endswith("+00:00")
    try:
        raise ValueError("boom")
    except ValueError:
        import sys as _sys

        failed = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", (), _sys.exc_info())
    line = JsonFormatter().format(failed)
    assert "\n" not in line and "ValueError: boom" in json.loads(line)["exception"]


def _settings(**env: str) -> subprocess.CompletedProcess[str]:
    # The settings module alone: django.setup() would build the S3 backend (the s3 extra).
    code = (
        "import json, leaderboard.settings as s; print(json.dumps({'private': "
        "s.STORAGES['private'], 'static': s.STORAGES['staticfiles']['BACKEND'], "
        "'log': s.LOGGING['handlers']}))"
    )
    environ = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**environ, "DJANGO_SETTINGS_MODULE": "leaderboard.settings", **env},
        capture_output=True,
        text=True,
    )


def test_s3_private_storage_is_private_and_configured_from_the_environment(tmp_path):
    done = _settings(
        TRACKBOARD_VAR_DIR=str(tmp_path),
        TRACKBOARD_PRIVATE_STORAGE="s3",
        TRACKBOARD_S3_BUCKET="tb-private",
        TRACKBOARD_S3_ENDPOINT_URL="https://minio.example:9000",
        LOG_FORMAT="json",
        TRACKBOARD_STATIC_MANIFEST="true",
    )
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout)
    assert values["private"]["BACKEND"] == "leaderboard.operations.s3.PrivateS3Storage"
    options = values["private"]["OPTIONS"]
    assert options["bucket_name"] == "tb-private" and options["default_acl"] == "private"
    assert options["endpoint_url"] == "https://minio.example:9000"
    assert options["file_overwrite"] is False
    assert values["static"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"
    assert values["log"]["console"]["formatter"] == "json"


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"LOG_FORMAT": "xml"}, "LOG_FORMAT"),
        ({"TRACKBOARD_PRIVATE_STORAGE": "ftp"}, "TRACKBOARD_PRIVATE_STORAGE"),
        ({"TRACKBOARD_PRIVATE_STORAGE": "s3"}, "TRACKBOARD_S3_BUCKET"),
        ({"TRACKBOARD_STATIC_MANIFEST": "maybe"}, "TRACKBOARD_STATIC_MANIFEST"),
    ],
)
def test_bad_operations_settings_stop_start_up_naming_the_variable(env, named, tmp_path):
    done = _settings(TRACKBOARD_VAR_DIR=str(tmp_path), **env)
    assert done.returncode != 0 and named in done.stderr
