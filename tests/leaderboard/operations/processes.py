"""Start and stop the real processes of a production-like site (gunicorn, Celery worker, beat).

Each process logs to its own file under the test's temporary directory; a test that times out
prints the tails of those logs. Everything started is stopped at the end, by its own pid.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from django.db import connection

from tests.conftest import ROOT

DEADLINE = 60.0
SECRET = "production-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz"


def database_url() -> str:
    """The URL of the database this test runs on, for the subprocesses."""
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def signals_as_from_a_terminal() -> None:
    """``preexec_fn`` of a script a test stops with INT, TERM or HUP: the three at their
    defaults, as a terminal starts it. A suite started in the background (``cmd &`` without
    job control) hands its children SIGINT ignored, which a shell's trap cannot take back."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def production_env(*, redis_url: str, tag: str, private: Path, var: Path, **extra: str) -> dict:
    """Production settings: the production switch, DEBUG off, a required SECRET_KEY, JSON logs,
    collected and hashed static files."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
        # The production switch of the security block: secure cookies, HSTS, check --deploy.
        # Plain HTTP on loopback stands in for the TLS proxy, so the app's own HTTPS redirect
        # is off (the proxy redirects) and clients accept secure cookies over it.
        "TRACKBOARD_PRODUCTION": "true",
        "TRACKBOARD_SSL_REDIRECT": "false",
        "DEBUG": "false",
        "SECRET_KEY": SECRET,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "TRACKBOARD_QUEUE": tag,
        "TRACKBOARD_CACHE_PREFIX": tag,
        "TRACKBOARD_PRIVATE_ROOT": str(private),
        "TRACKBOARD_VAR_DIR": str(var),
        "STATIC_ROOT": str(var / "static"),
        "TRACKBOARD_STATIC_MANIFEST": "true",
        "LOG_FORMAT": "json",
        **extra,
    }
    env.pop("DATABASE_TEST_NAME", None)
    return env


class Processes:
    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.started.append(process)
        return process

    def run(self, name: str, argv: list[str], env: dict[str, str]) -> str:
        """Run a one-shot command to completion; fail with its output when it fails."""
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise AssertionError(f"{name} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
        return done.stdout

    def tails(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(self.logs.glob("*.log"))
        )

    def wait_for(self, predicate: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            for process in self.started:
                if process.poll() is not None:
                    raise AssertionError(f"a process exited early ({process.args[:4]}):\n"
                                         f"{self.tails()}")  # fmt: skip
            try:
                if predicate():
                    return
            except OSError:
                pass  # not listening yet
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}:\n{self.tails()}")

    def stop(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.terminate()
        for process in self.started:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


PYTHON = sys.executable
