"""``scripts/run`` stops every process it started, whatever signal stops it: INT (Ctrl-C), TERM
and HUP sent to its whole process group, as a terminal, a process manager or a closed session
sends them. It says so, and no process of the site survives (found by the site's own data
folder in each process's environment, so a pool process or an embedded beat counts too).

The three runs share one embedded site (its data folder), so only the first migrates and
loads the demo from scratch.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.leaderboard.operations.processes import free_port, signals_as_from_a_terminal

pytestmark = pytest.mark.slow

#: scripts/run's graceful timeout for this test, and a generous wait beyond it.
STOP_TIMEOUT = 20
START_DEADLINE = 240


def _environment(var: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "DATABASE_TEST_NAME", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env["TRACKBOARD_VAR_DIR"] = str(var)
    env["TRACKBOARD_ADDR"] = f"127.0.0.1:{free_port()}"
    env["TRACKBOARD_STOP_TIMEOUT"] = str(STOP_TIMEOUT)
    return env


def _site_processes(var: Path) -> list[int]:
    """Every live process whose environment names this site's data folder."""
    marker = f"TRACKBOARD_VAR_DIR={var}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and marker in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def var(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("run-site") / "var"


@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name
)
def test_scripts_run_stops_everything_it_started(var, tmp_path, sig):
    env = _environment(var)
    log_path = tmp_path / "run.log"
    with log_path.open("wb") as log:
        site = subprocess.Popen(
            ["scripts/run"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=signals_as_from_a_terminal,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + START_DEADLINE
        while True:
            text = log_path.read_text(errors="replace")
            try:
                with urllib.request.urlopen(f"http://{env['TRACKBOARD_ADDR']}/healthz", timeout=5):
                    pass
                up = True
            except OSError:
                up = False
            if up and " ready." in text:  # the web server answers, the worker is ready
                break
            if time.monotonic() > deadline or site.poll() is not None:
                pytest.fail(f"scripts/run did not start; its output:\n{text[-4000:]}")
            time.sleep(0.5)
        started = _site_processes(var)
        # the script, the worker's main process, its two pool processes, its embedded beat
        # and the web server at least
        assert len(started) >= 5, started
        os.killpg(site.pid, sig)  # the whole group, as a process manager or a terminal does
        site.wait(timeout=STOP_TIMEOUT + 30)
    finally:
        if site.poll() is None:
            os.killpg(site.pid, signal.SIGKILL)
            site.wait()
    output = log_path.read_text(errors="replace")
    survivors = _site_processes(var)
    for pid in survivors:  # leave nothing running, whatever the outcome
        os.kill(pid, signal.SIGKILL)
    assert survivors == [], output[-4000:]
    assert "scripts/run: stopped the web server and the worker" in output, output[-4000:]
    assert "killed process group" not in output
