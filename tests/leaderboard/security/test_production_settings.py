"""Production settings (TRACKBOARD_PRODUCTION=true): `check --deploy` is clean, start-up refuses
an unsafe combination (the examples' placeholder key among them), `check --deploy` refuses mail
that is not sent; security headers and CSP on every page in every mode."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml

from tests.conftest import ROOT

PRODUCTION_ENV = {
    "TRACKBOARD_PRODUCTION": "true",
    "DEBUG": "false",
    "SECRET_KEY": "k" * 20 + "-production-test-key-not-used-anywhere-0123456789abcdef",
    "ALLOWED_HOSTS": "trackboard.example.org",
    "TRACKBOARD_SITE_URL": "https://trackboard.example.org",
    # checked, never connected to
    "EMAIL_HOST": "mail.example.org",
}


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, **env}
    full.pop("DJANGO_SETTINGS_MODULE", None)
    # Set by the browser tests in this process; a deployment never sets it (check --deploy
    # warns about it).
    full.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    result = _manage(
        "check", "--deploy", "--fail-level", "WARNING",
        **PRODUCTION_ENV, TRACKBOARD_VAR_DIR=str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_warns_when_mail_links_would_lead_to_another_host(tmp_path):
    env = {**PRODUCTION_ENV, "TRACKBOARD_VAR_DIR": str(tmp_path)}
    env.pop("TRACKBOARD_SITE_URL")  # the default, http://localhost:8000
    result = _manage("check", "--deploy", "--fail-level", "WARNING", **env)
    assert result.returncode != 0
    assert "trackboard.W001" in result.stderr and "'localhost'" in result.stderr


@pytest.mark.parametrize(
    ("override", "named"),
    [
        # no mail server: the embedded default, which prints the mail
        ({"EMAIL_HOST": ""}, "console.EmailBackend"),
        ({"EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend"}, "filebased"),
    ],
)
def test_check_deploy_refuses_mail_that_is_not_sent(tmp_path, override, named):
    env = {**PRODUCTION_ENV, **override, "TRACKBOARD_VAR_DIR": str(tmp_path)}
    # no --fail-level: an error fails the check by itself
    result = _manage("check", "--deploy", **env)
    assert result.returncode != 0
    assert "trackboard.E001" in result.stderr and named in result.stderr
    assert "Set EMAIL_HOST" in result.stderr
    # a warning would not stop a deployment's `check --deploy`; the mail one is an error
    assert "ERRORS:" in result.stderr


def test_the_examples_placeholder_secret_is_refused_in_production(tmp_path):
    example = yaml.safe_load((ROOT / "deploy" / "kubernetes" / "secret.example.yaml").read_text())
    key = example["stringData"]["SECRET_KEY"]
    assert len(key) >= 50  # long enough: the length check alone would let it through
    result = _manage(
        "check",
        "--deploy",
        **{**PRODUCTION_ENV, "SECRET_KEY": key},
        TRACKBOARD_VAR_DIR=str(tmp_path),
    )
    assert result.returncode != 0
    assert "SECRET_KEY still holds the examples' placeholder" in result.stderr
    assert "secrets.token_urlsafe(50)" in result.stderr


@pytest.mark.parametrize("key", ["x" * 50 + "-CHANGE-ME", "Change-Me" + "y" * 50])
def test_a_placeholder_anywhere_in_the_secret_is_refused_in_any_case(tmp_path, key):
    result = _manage(
        "check", **{**PRODUCTION_ENV, "SECRET_KEY": key}, TRACKBOARD_VAR_DIR=str(tmp_path)
    )
    assert result.returncode != 0
    assert "placeholder" in result.stderr


def test_every_example_secret_is_the_placeholder():
    env_example = (ROOT / "docker" / ".env.example").read_text()
    docker_key = next(
        line.split("=", 1)[1] for line in env_example.splitlines() if line.startswith("SECRET_KEY=")
    )
    kubernetes = yaml.safe_load(
        (ROOT / "deploy" / "kubernetes" / "secret.example.yaml").read_text()
    )
    for key in (docker_key, kubernetes["stringData"]["SECRET_KEY"]):
        assert "change-me" in key.lower(), key


def test_scripts_run_builds_mail_links_on_the_address_it_serves():
    # the one setting: scripts/run exports it from its own address unless the caller set it
    text = (ROOT / "scripts" / "run").read_text()
    assert 'export TRACKBOARD_SITE_URL="${TRACKBOARD_SITE_URL:-http://$ADDR}"' in text
    assert text.index("TRACKBOARD_SITE_URL") < text.index("runserver")


@pytest.mark.parametrize(
    ("override", "message"),
    [({"DEBUG": "true"}, "DEBUG=false"), ({"SECRET_KEY": ""}, "SECRET_KEY")],
)
def test_production_refuses_to_start_unsafely(tmp_path, override, message):
    env = {**PRODUCTION_ENV, **override, "TRACKBOARD_VAR_DIR": str(tmp_path)}
    result = _manage("check", **env)
    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/api/v1/challenges/", "/accounts/login/", "/api/v1/docs/"])
def test_pages_carry_the_security_headers_and_a_csp_without_inline_script(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    policy = response["Content-Security-Policy"]
    script = next(d for d in policy.split(";") if d.strip().startswith("script-src"))
    assert "'unsafe-inline'" not in script and "'unsafe-eval'" not in script
    assert "frame-ancestors 'none'" in policy
    if path == "/api/v1/docs/":
        assert b"<script>" not in response.content  # Swagger UI starts from a file


def test_production_settings_set_hsts_and_secure_cookies(tmp_path):
    code = (
        "from django.conf import settings as s;"
        "print(s.SECURE_HSTS_SECONDS, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE,"
        " s.SECURE_SSL_REDIRECT, s.DEBUG)"
    )
    env = {**os.environ, **PRODUCTION_ENV, "TRACKBOARD_VAR_DIR": str(tmp_path)}
    env["DJANGO_SETTINGS_MODULE"] = "leaderboard.settings"
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup();" + code],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.stdout.split() == ["31536000", "True", "True", "True", "False"], result.stderr
