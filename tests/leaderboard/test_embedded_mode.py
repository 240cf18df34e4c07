"""The embedded default as ``scripts/run`` starts it (SQLite, the local file broker, an
in-process cache, no service to install): the web server and a worker are separate processes,
each with its own cache. A result the worker writes is on the leaderboard page a reader
polls within seconds, although the reader's process had the board cached before."""

from __future__ import annotations

import datetime as dt
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

#: Run in the project's own shell: a challenge with one phase and one condition, a team.
SET_UP = """
import datetime as dt, json
from django.contrib.auth import get_user_model
from django.utils import timezone
from leaderboard.challenges.models import Challenge, Condition, Phase
from leaderboard.challenges.services import add_reference
from leaderboard.teams.services import create_team, register
from scoring.synth import make_gold

user = get_user_model().objects.create_user("poller", "poller@example.org", "pw")
team = create_team(name="Polling team", user=user)
challenge = Challenge.objects.create(slug="embedded", title="Embedded")
register(team=team, challenge=challenge)
now = timezone.now()
phase = Phase.objects.create(challenge=challenge, name="Test", slug="test",
                             opens_at=now - dt.timedelta(days=1),
                             closes_at=now + dt.timedelta(days=1))
condition = Condition.objects.create(phase=phase, key="tts-verbatim", label="TTS-Verbatim")
add_reference(condition, json.dumps(make_gold(12, seed=4)).encode(), "gold.json")
"""

SUBMIT = """
import json
from django.core.files.uploadedfile import SimpleUploadedFile
from leaderboard.challenges.models import Phase
from leaderboard.submissions.services import submit
from leaderboard.teams.models import Team
from scoring.synth import make_gold, make_prediction

phase = Phase.objects.get(slug="test")
team = Team.objects.get(name="Polling team")
data = json.dumps(make_prediction(make_gold(12, seed=4), 0.2, seed=5)).encode()
files = {"tts-verbatim": SimpleUploadedFile("run.json", data)}
submission = submit(team=team, phase=phase, user=team.created_by, files=files,
                    method_name="Polling tracker")
print(submission.pk)
"""

SCORED_AT = """
from leaderboard.submissions.models import Submission
print(Submission.objects.get(pk={pk}).scored_at.timestamp())
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _page(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def test_a_result_scored_by_the_worker_is_on_the_polled_page_within_seconds(tmp_path: Path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "DATABASE_TEST_NAME", "REDIS_URL")
    }
    env["TRACKBOARD_VAR_DIR"] = str(tmp_path / "var")
    (tmp_path / "var").mkdir()

    def manage(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
            text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    manage("migrate", "--no-input", "-v", "0")
    manage("shell", "-c", SET_UP)
    port = _free_port()
    logs = {name: open(tmp_path / f"{name}.log", "wb") for name in ("web", "worker")}  # noqa: SIM115
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "leaderboard",
                "worker",
                "--pool=solo",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=INFO",
            ],
            cwd=ROOT,
            env=env,
            stdout=logs["worker"],
            stderr=subprocess.STDOUT,
        ),
        subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=logs["web"],
            stderr=subprocess.STDOUT,
        ),
    ]
    url = f"http://127.0.0.1:{port}/challenges/embedded/test/leaderboard/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                page = _page(url)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail((tmp_path / "web.log").read_text(errors="replace"))
                time.sleep(0.2)
        # The web process has built and cached the empty board.
        assert "Polling tracker" not in page and "No scored submissions yet" in page
        pk = int(manage("shell", "-c", SUBMIT).strip().splitlines()[-1])
        deadline = time.monotonic() + 120
        while "Polling tracker" not in page:
            if time.monotonic() > deadline:
                output = "\n".join(p.read_text(errors="replace")[-3000:] for p in
                                   sorted(tmp_path.glob("*.log")))  # fmt: skip
                pytest.fail(f"the result never reached the page; logs:\n{output}")
            time.sleep(0.25)
            page = _page(url)
        seen = time.time()
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
        for log in logs.values():
            log.close()
    scored = float(manage("shell", "-c", SCORED_AT.format(pk=pk)).strip().splitlines()[-1])
    waited = dt.timedelta(seconds=seen - scored)
    assert waited <= dt.timedelta(seconds=6), f"on the page {waited} after it was scored"
