"""The issue's end-to-end check: a token made on the profile page, ``trackboard login``,
``trackboard submit`` of three files with ``--wait`` while the test scores the submission,
JGA and SER on the screen, and the leaderboard as JSON; all through real HTTP."""

from __future__ import annotations

import json
import re
import stat
import subprocess
import time
from pathlib import Path

import pytest
from django.test import Client

from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import KEYS, approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, JGA, PREDICTION, SER, log_in
from tests.trackboard_cli.conftest import trackboard_command

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _token_from_profile_page(user) -> str:
    client = Client()
    log_in(client, user)
    page = client.post("/accounts/profile/tokens/", {"name": "cli test"}).content.decode()
    return re.search(r'<code id="new-token">([^<]+)</code>', page).group(1)


def _score_when_queued(process: subprocess.Popen, deadline: float) -> int:
    """Act as the worker: score the submission once the CLI has uploaded it."""
    while time.monotonic() < deadline:
        pk = (
            Submission.objects.filter(status=Submission.Status.QUEUED)
            .values_list("pk", flat=True)
            .first()
        )
        if pk is not None:
            time.sleep(0.3)  # let the CLI see it queued first
            assert services.run_scoring(pk) == "scored"
            return pk
        if process.poll() is not None:
            pytest.fail(f"the CLI ended early: {process.communicate()}")
        time.sleep(0.1)
    pytest.fail("no submission arrived")


def test_login_submit_wait_and_leaderboard_through_the_cli(
    live_server, run_cli, cli_env, tmp_path: Path, enqueued
):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    key = _token_from_profile_page(team.created_by)

    login = run_cli("login", "--url", live_server.url, "--token", key)
    assert login.returncode == 0, login.stderr
    config = Path(cli_env["TRACKBOARD_CONFIG"])
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert json.loads(config.read_text()) == {"url": live_server.url, "token": key}

    listing = run_cli("challenges")
    assert listing.returncode == 0 and f"{phase.challenge.slug}/{phase.slug}" in listing.stdout

    files = []
    for key_name in KEYS:
        path = tmp_path / f"{key_name}.json"
        path.write_text(json.dumps(PREDICTION))
        files += ["--file", f"{key_name}={path}"]
    target = f"{phase.challenge.slug}/{phase.slug}"
    process = subprocess.Popen(
        [*trackboard_command(), "submit", target, *files, "--method", "CLI run", "--wait",
         "--interval", "0.2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        pk = _score_when_queued(process, time.monotonic() + 30)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0, (out, err)
    assert f"submission {pk}: queued" in out and f"submission {pk}: scored" in out
    assert "JGA" in out and "SER" in out
    for key_name in KEYS:
        cells = next(ln.split() for ln in out.splitlines() if ln.split()[:1] == [key_name])
        assert cells[1] == JGA and SER in cells

    board = run_cli("leaderboard", str(phase.pk), "--json")
    assert board.returncode == 0, board.stderr
    data = json.loads(board.stdout)
    (row,) = data["results"]
    assert row["method_name"] == "CLI run" and f"{row['jga']:.2f}" == JGA
    by_slug = run_cli("leaderboard", target, "--condition", "tts-verbatim")
    assert by_slug.returncode == 0 and "CLI run" in by_slug.stdout

    results = run_cli("results", str(pk), "--json")
    assert json.loads(results.stdout)["results"]["tts-verbatim"]["ser"] == pytest.approx(100 / 6)
    status = run_cli("status")
    assert status.returncode == 0 and str(pk) in status.stdout and "scored" in status.stdout
    assert run_cli("status", str(pk)).returncode == 0


def test_a_file_the_server_rejects_exits_2_with_the_scorers_message(
    live_server, run_cli, tmp_path: Path
):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    assert run_cli("login", "--url", live_server.url, "--token", _token_from_profile_page(
        team.created_by)).returncode == 0  # fmt: skip
    # Well-formed, so it passes the local check; the server finds a dialogue missing.
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"mul0001": PREDICTION["mul0001"]}))
    files = [arg for k in KEYS for arg in ("--file", f"{k}={partial}")]
    result = run_cli("submit", str(phase.pk), *files)
    assert result.returncode == 2
    assert "sng0002" in result.stderr and "does not count" in result.stderr
    assert "Traceback" not in result.stderr
