"""Running the real ``trackboard`` console script as a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# The web tests' isolation (private storage, cache prefix, queue), fast password hashing and
# the enqueue recorder apply to the live server these tests drive.
from tests.leaderboard.conftest import (  # noqa: F401
    _fast_password_hashing,
    _isolated,
    enqueued,
)


def trackboard_command() -> list[str]:
    script = Path(sys.executable).with_name("trackboard")
    if script.exists():
        return [str(script)]
    found = shutil.which("trackboard")
    return [found] if found else [sys.executable, "-m", "trackboard_cli"]


@pytest.fixture
def cli_env(tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HTTP_PROXY", "http_proxy"))}
    env["TRACKBOARD_CONFIG"] = str(tmp_path / "config" / "trackboard.json")
    env["NO_PROXY"] = "*"
    return env


@pytest.fixture
def run_cli(cli_env):
    def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*trackboard_command(), *args],
            capture_output=True,
            text=True,
            env=cli_env,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    return run
