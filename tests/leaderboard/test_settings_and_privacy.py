"""Settings helpers fail loudly; private files have no URL."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from leaderboard import settings as project_settings
from leaderboard.storage import private_storage


@pytest.mark.parametrize(
    ("helper", "value"),
    [(project_settings.env_bool, "maybe"), (project_settings.env_int, "ten")],
)
def test_typed_helpers_refuse_bad_values(monkeypatch, helper, value):
    monkeypatch.setenv("TRACKBOARD_X", value)
    with pytest.raises(ImproperlyConfigured, match="TRACKBOARD_X"):
        helper("TRACKBOARD_X", 1)


def test_env_int_enforces_its_minimum(monkeypatch):
    monkeypatch.setenv("TRACKBOARD_X", "0")
    with pytest.raises(ImproperlyConfigured, match="at least 1"):
        project_settings.env_int("TRACKBOARD_X", 3, minimum=1)


def test_database_url_is_parsed_into_a_postgres_entry():
    db = project_settings.database_from_url(
        "postgres://u:p%40ss@db.example:6543/tb?sslmode=require"
    )
    assert (db["ENGINE"], db["NAME"], db["USER"], db["PASSWORD"]) == (
        "django.db.backends.postgresql",
        "tb",
        "u",
        "p@ss",
    )
    assert (db["HOST"], db["PORT"], db["OPTIONS"]) == ("db.example", "6543", {"sslmode": "require"})


@pytest.mark.parametrize("url", ["mysql://u@h/db", "postgres://u@h/"])
def test_unsupported_database_urls_fail_loudly(url):
    with pytest.raises(ImproperlyConfigured):
        project_settings.database_from_url(url)


def test_private_storage_has_no_url():
    with pytest.raises(ValueError, match="no URL"):
        private_storage().url("references/abc")


@pytest.mark.django_db
def test_no_route_serves_private_files():
    client = Client()
    for path in ("/media/references/x", "/private/references/x", "/references/x"):
        assert client.get(path).status_code == 404
    assert client.get("/healthz").json()["status"] == "ok"
