"""``trackboard`` with a token the site refuses for its age or its scope, against a live
server: it prints the site's message (when the token expired, where to renew it or make a
new one), how to give the command a new token, and exits 1; with ``--json``, the same in the
API's error shape."""

from __future__ import annotations

import datetime as dt
import json
import subprocess

import pytest
from django.utils import timezone

from leaderboard.api.models import ApiToken
from leaderboard.api.services import create_token
from tests.leaderboard.factories import UserFactory
from tests.trackboard_cli.conftest import trackboard_command

pytestmark = pytest.mark.django_db(transaction=True)


def _run(cli_env, url: str, key: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**cli_env, "TRACKBOARD_URL": url, "TRACKBOARD_TOKEN": key}
    return subprocess.run(
        [*trackboard_command(), *args], capture_output=True, text=True, env=env, timeout=60,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_an_expired_token_prints_when_it_expired_and_how_to_make_a_new_one(
    live_server, cli_env, settings
):
    settings.TIME_ZONE = "UTC"
    token, key = create_token(UserFactory(), "ci")
    ApiToken.objects.filter(pk=token.pk).update(
        expires_at=dt.datetime(2026, 1, 31, 18, 0, tzinfo=dt.UTC)
    )
    page = f"{live_server.url}/accounts/profile/#api-tokens"

    result = _run(cli_env, live_server.url, key, "status")
    assert result.returncode == 1
    assert (
        "trackboard: This token expired on 2026-01-31. Renew it or make a new one on your "
        f"profile page: {page}"
    ) in result.stderr
    assert f"trackboard login --url {live_server.url}" in result.stderr
    assert "TRACKBOARD_TOKEN" in result.stderr
    assert "Traceback" not in result.stderr

    as_json = _run(cli_env, live_server.url, key, "status", "--json")
    assert as_json.returncode == 1
    answer = json.loads(as_json.stdout)
    assert (answer["status"], answer["exit_code"]) == (401, 1)
    assert answer["error"]["code"] == "token_expired"
    assert "expired on 2026-01-31" in answer["error"]["message"]
    assert answer["error"]["details"]["tokens_url"] == page
    assert f"trackboard login --url {live_server.url}" in answer["error"]["details"]["hint"]

    # renewed (as the profile page's Renew does), the same key works again
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() + dt.timedelta(days=1))
    assert _run(cli_env, live_server.url, key, "status").returncode == 0


def test_a_read_only_token_prints_why_it_may_not_create_a_team(live_server, cli_env):
    _, key = create_token(UserFactory(), "reader", scope="read")
    result = _run(cli_env, live_server.url, key, "team", "create", "Readers")
    assert result.returncode == 1
    assert "trackboard: This token may only read: changing a team" in result.stderr
    assert "needs a token with the 'team' scope" in result.stderr
    assert f"{live_server.url}/accounts/profile/#api-tokens" in result.stderr
    as_json = _run(cli_env, live_server.url, key, "team", "create", "Readers", "--json")
    answer = json.loads(as_json.stdout)
    assert (answer["status"], answer["error"]["code"]) == (403, "token_scope")
