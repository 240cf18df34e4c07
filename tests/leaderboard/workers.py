"""Real Celery worker processes for tests, each pointed at the test's own database, private
storage, cache prefix and queue. Waiting loops have a generous deadline so a broken worker
fails the test with its log instead of hanging it; nothing asserts speed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.db import connection

from tests.conftest import ROOT
from tests.leaderboard.slow_worker import DELAY_VARIABLE

DEADLINE = 60.0


def database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def wait_for(predicate: Callable[[], bool], what: str, logs: Path, deadline: float = DEADLINE):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.02)
    output = "\n".join(p.read_text(errors="replace")[-4000:] for p in sorted(logs.glob("*.log")))
    pytest.fail(f"timed out waiting for {what}; worker output:\n{output}")


def _stop(processes: list[subprocess.Popen]) -> None:
    """Terminate each process still running, killing it after 10 s."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def start_worker(
    postgres, redis_url, isolation, tmp_path
) -> Iterator[Callable[..., subprocess.Popen]]:
    """``start(pool="solo"|"prefork", broker=URL, queues="a,b", **env)`` starts a worker (on
    the test's queue and its mail queue unless ``queues`` names others); all stop at teardown.

    With ``TRACKBOARD_TEST_SCORE_DELAY=SECONDS`` among ``env`` the worker holds each claim that
    long before scoring (tests/leaderboard/slow_worker.py), so a test can kill it mid-scoring.
    """
    processes: list[subprocess.Popen] = []

    def start(
        *,
        pool: str = "solo",
        concurrency: int = 1,
        broker: str | None = None,
        queues: str = "",
        **extra_env: str,
    ):
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
            "DATABASE_URL": database_url(),
            "REDIS_URL": broker or redis_url,
            "TRACKBOARD_QUEUE": isolation["tag"],
            "TRACKBOARD_CACHE_PREFIX": isolation["tag"],
            "TRACKBOARD_PRIVATE_ROOT": str(isolation["private"]),
            "TRACKBOARD_VAR_DIR": str(tmp_path / "var"),
            **extra_env,
        }
        env.pop("DATABASE_TEST_NAME", None)
        log = open(tmp_path / f"worker-{len(processes)}.log", "wb")  # noqa: SIM115
        pool_args = (
            ["--pool=prefork", f"--concurrency={concurrency}"]
            if pool == "prefork"
            else ["--pool=solo"]
        )
        command = "tests.leaderboard.slow_worker" if DELAY_VARIABLE in extra_env else "celery"
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                command,
                "-A",
                "leaderboard",
                "worker",
                *pool_args,
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=INFO",
                f"--hostname={isolation['tag']}-{len(processes)}@%h",
                # the scoring queue and, unless told otherwise, the mail queue (as
                # scripts/run's worker; production gives mail a worker of its own)
                f"--queues={queues or isolation['tag'] + ',' + isolation['tag'] + '-mail'}",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        processes.append(process)
        return process

    yield start
    _stop(processes)


@pytest.fixture
def start_beat(
    postgres, redis_url, isolation, tmp_path
) -> Iterator[Callable[..., subprocess.Popen]]:
    """``start(broker=URL, **env)`` starts a beat scheduler on the test's database and queue;
    all stop at teardown."""
    processes: list[subprocess.Popen] = []

    def start(*, broker: str | None = None, **extra_env: str) -> subprocess.Popen:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
            "DATABASE_URL": database_url(),
            "REDIS_URL": broker or redis_url,
            "TRACKBOARD_QUEUE": isolation["tag"],
            "TRACKBOARD_CACHE_PREFIX": isolation["tag"],
            "TRACKBOARD_VAR_DIR": str(tmp_path / "var"),
            **extra_env,
        }
        env.pop("DATABASE_TEST_NAME", None)
        log = open(tmp_path / f"beat-{len(processes)}.log", "wb")  # noqa: SIM115
        schedule = tmp_path / f"beat-schedule-{len(processes)}"
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "leaderboard", "beat", "--loglevel=INFO",
             f"--schedule={schedule}"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        processes.append(process)
        return process

    yield start
    _stop(processes)
