"""Settings helpers fail loudly; importing the settings creates nothing on disk, the embedded
mode's folders are made where they are used; private files have no URL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from leaderboard.env import database_from_url, env_bool, env_float, env_int, env_rate
from leaderboard.storage import private_storage
from tests.conftest import ROOT


@pytest.mark.parametrize(
    ("helper", "value"),
    [(env_bool, "maybe"), (env_int, "ten"), (env_float, "a lot"), (env_rate, "3/fortnight")],
)
def test_typed_helpers_refuse_bad_values(monkeypatch, helper, value):
    monkeypatch.setenv("TRACKBOARD_X", value)
    with pytest.raises(ImproperlyConfigured, match="TRACKBOARD_X"):
        helper("TRACKBOARD_X", 1)


def test_env_int_enforces_its_minimum(monkeypatch):
    monkeypatch.setenv("TRACKBOARD_X", "0")
    with pytest.raises(ImproperlyConfigured, match="at least 1"):
        env_int("TRACKBOARD_X", 3, minimum=1)


def test_database_url_is_parsed_into_a_postgres_entry():
    db = database_from_url(
        "postgres://u:p%40ss@db.example:6543/tb?sslmode=require", conn_max_age=60, test_name="t"
    )
    assert (db["ENGINE"], db["NAME"], db["USER"], db["PASSWORD"]) == (
        "django.db.backends.postgresql",
        "tb",
        "u",
        "p@ss",
    )
    assert (db["HOST"], db["PORT"], db["OPTIONS"]) == ("db.example", "6543", {"sslmode": "require"})
    assert (db["CONN_MAX_AGE"], db["TEST"]) == (60, {"NAME": "t"})


@pytest.mark.parametrize("url", ["mysql://u@h/db", "postgres://u@h/"])
def test_unsupported_database_urls_fail_loudly(url):
    with pytest.raises(ImproperlyConfigured):
        database_from_url(url)


def _embedded(code: str, var: Path) -> list[str] | None:
    """Run ``code`` in a fresh interpreter in the embedded mode (SQLite, file broker) with
    TRACKBOARD_VAR_DIR=``var``; what exists under ``var`` afterwards (None: not even ``var``)."""
    environ = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    environ.update(DJANGO_SETTINGS_MODULE="leaderboard.settings", TRACKBOARD_VAR_DIR=str(var))
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    if not var.exists():
        return None
    return sorted(path.relative_to(var).as_posix() for path in var.rglob("*"))


def test_importing_the_settings_creates_no_folder(tmp_path):
    assert _embedded("import leaderboard.settings", tmp_path / "var") is None


def test_django_start_up_makes_the_folders_of_the_sqlite_database_and_static_files(tmp_path):
    assert _embedded("import django; django.setup()", tmp_path / "var") == ["static"]


def test_reading_celerys_configuration_makes_the_file_broker_folders(tmp_path):
    code = "import django; django.setup(); from leaderboard.celery import app; app.conf.broker_url"
    assert _embedded(code, tmp_path / "var") == [
        "broker",
        "broker/control",
        "broker/out",
        "broker/processed",
        "static",
    ]


def test_beat_makes_the_folder_of_its_schedule_file(tmp_path):
    schedule = tmp_path / "beat" / "schedule"
    code = (
        "import django; django.setup(); from leaderboard.celery import app;"
        " from leaderboard.beat import PersistentScheduler;"
        f" PersistentScheduler(app, schedule_filename={str(schedule)!r}).close()"
    )
    _embedded(code, tmp_path / "var")
    assert schedule.parent.is_dir()


def test_private_storage_has_no_url():
    with pytest.raises(ValueError, match="no URL"):
        private_storage().url("references/abc")


@pytest.mark.django_db
def test_no_route_serves_private_files():
    client = Client()
    for path in ("/media/references/x", "/private/references/x", "/references/x"):
        assert client.get(path).status_code == 404
    assert client.get("/healthz").json()["status"] == "ok"
